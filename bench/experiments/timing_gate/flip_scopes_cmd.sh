cp .carry/bwrap/bwrap /usr/local/bin/bwrap; chmod 755 /usr/local/bin/bwrap; rm -rf .carry/base
for sc in timed-kernels default; do OUT=$OUT/$sc FLIP_SCOPE=$sc FLIP_SHARES="10 12 15" BUDGET_S=330 bash bench/experiments/lock_scope/device_lock_scope.sh flips 2>&1 | grep -E "P=|without|scope|built"; done
J=build/lockscope/grader/banklab-judge
for i in 1 2 3 4 5; do python3 grader/selftest/run_cases.py --judge $J --kind cheat --tier gpu --gpu --work /tmp/ch$i --case solutions/05_swizzle/cases/cheats/conflict_free_only_in_block_0_05.patch 2>&1 | grep -E "^(OK|FAILED)" | cut -c1-80; grep -o '[0-9]* wavefronts in all' /tmp/ch$i/*/grade.json | head -1; done
tar -C $OUT -czf $OUT/flips.tgz timed-kernels default
