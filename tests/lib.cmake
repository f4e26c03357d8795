# The shared test library (lib/il_test.c) keeps promises of its own: what a
# test prints reaches the log whole.
il_add_test(test_il_test SOURCES test_il_test.c LABELS unit)
