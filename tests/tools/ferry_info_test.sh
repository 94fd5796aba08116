# ferry_info lists every registered setting with its current value and
# default, prints the README's Markdown table (and the README has exactly
# that table: it went stale once), and rejects a misspelt FERRY_* variable.
#
# Usage: ferry_info_test.sh FERRY_INFO [README]
ferry_info=$1
readme=${2:-}
. "$(dirname "$0")/testlib.sh"

out=$(env FERRY_SPIN_US=123 "$ferry_info") || fail "ferry_info exited $?"
for name in FERRY_DEBUG FERRY_WAIT FERRY_SPIN_US FERRY_TCP_EAGER_LIMIT FERRY_CONNECT_TIMEOUT; do
  echo "$out" | grep -q "^$name " || fail "ferry_info does not list $name"
done
echo "$out" | grep -q '^FERRY_SPIN_US  *123  *200 ' || fail "FERRY_SPIN_US should show value 123, default 200:
$(echo "$out" | grep FERRY_SPIN_US)"

md=$("$ferry_info" --markdown) || fail "ferry_info --markdown exited $?"
echo "$md" | grep -q '^| `FERRY_WAIT` | `auto` | ' || fail "no Markdown row for FERRY_WAIT"
if [ -n "$readme" ]; then
  table=$(sed -n '/^| Variable | Default | Description |$/,/^$/p' "$readme" | sed '/^$/d')
  [ "$table" = "$md" ] || fail "README's environment table differs from ferry_info --markdown (regenerate it):
$(printf '%s\n' "$md" > /tmp/ferry_info_md.$$; printf '%s\n' "$table" | diff - /tmp/ferry_info_md.$$; rm -f /tmp/ferry_info_md.$$)"
fi

if err=$(env FERRY_SPINUS=1 "$ferry_info" 2>&1 >/dev/null); then fail "a misspelt FERRY_ variable must fail"; fi
case $err in
  *FERRY_SPINUS*) ;;
  *) fail "the message must name the misspelt variable: $err" ;;
esac

echo "ferry_info: ok"
