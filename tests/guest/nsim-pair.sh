#!/usr/bin/env bash
# Harness smoke test on the unmodified NAPI machinery: two linked netdevsim
# devices in two netns, real traffic checked byte for byte, and the NAPIs
# listed over netdev-genl with the YNL CLI.
. "$(dirname "$0")/lib.sh"

trap pair_destroy EXIT
ktap_print_header
ktap_set_plan 4

if pair_create 101 102 2; then
	ktap_test_pass "linked netdevsim pair in two netns"
else
	ktap_exit_fail_msg "could not create the netdevsim pair"
fi

ktap_test_result "ping $ADDR_A from the peer netns" \
	ip netns exec "$NS_B" ping -c 3 -i 0.2 -W 5 -q "$ADDR_A"

ktap_test_result "8 MiB through the pair, md5 equal" transfer_check $((8 << 20))

napis=$(ip netns exec "$NS_A" $YNL --dump napi-get --json "{\"ifindex\": $IFINDEX_A}" 2>&1)
echo "$napis" | sed 's/^/# napi-get: /'
count=$(grep -o "'ifindex': $IFINDEX_A" <<<"$napis" | wc -l)
if [ "$count" -eq 2 ]; then
	ktap_test_pass "napi-get lists the 2 NAPIs of $DEV_A"
else
	ktap_test_fail "napi-get lists the 2 NAPIs of $DEV_A (saw $count)"
fi
ktap_finished
