# Install rules: libraries, headers, mpirun/mpiexec, wrappers, pkg-config.
