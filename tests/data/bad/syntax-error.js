// A miner with a syntax error on line 3.
function tick() {
  return 1 +;
}
