// miner.js: the "crypto miner" a page could run, as inputlat's JavaScript
// hog executes it (--hog-mode js). It does what a browser miner does: hash
// block headers with ever new nonces, looking for a hash below a target.
// Here the hash is SHA-256's compression function on 32-bit integers,
// plain ES5, so both small engines run it unchanged.
//
// The contract with the hog (for your own --hog-script FILE): the script
// defines a function tick() that does one bounded piece of work and
// returns. The hog calls it over and over, counts each call as one
// iteration and checks between calls whether the run is stopping, so a
// tick should take well under a millisecond. Top-level code runs once when
// the script is loaded, before measurement starts.

var K = [
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
];
var H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
var W = new Array(64);
var header = [0x01000000, 0x81cd02ab, 0x7e569e8b, 0xcd9317e2, 0xfe99f2de, 0x44d49ab2, 0xb8851ba4,
	      0xa3080000, 0x00000000, 0xe320b6c2, 0xfffc8d75, 0x0423db8b, 0xe2b8e7f2, 0x8000000, 0, 0];
var nonce = 0, best = 0xffffffff, found = 0;

function rotr(x, n) { return (x >>> n) | (x << (32 - n)); }

// One SHA-256 compression of the 16-word block `header` with `nonce` in
// word 3; returns the first word of the state.
function compress() {
	var i, a, b, c, d, e, f, g, h, t1, t2, s0, s1;
	for (i = 0; i < 16; i++) W[i] = header[i] | 0;
	W[3] = nonce | 0;
	for (i = 16; i < 64; i++) {
		s0 = rotr(W[i - 15], 7) ^ rotr(W[i - 15], 18) ^ (W[i - 15] >>> 3);
		s1 = rotr(W[i - 2], 17) ^ rotr(W[i - 2], 19) ^ (W[i - 2] >>> 10);
		W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
	}
	a = H0[0]; b = H0[1]; c = H0[2]; d = H0[3]; e = H0[4]; f = H0[5]; g = H0[6]; h = H0[7];
	for (i = 0; i < 64; i++) {
		s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
		t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
		s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
		t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
		h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
	}
	return (H0[0] + a) >>> 0;
}

// One tick: one nonce tried (about 0.4 ms in libmujs), the best hash kept,
// so nothing is dead code.
function tick() {
	var hash = compress();
	if (hash < best) { best = hash; found++; }
	nonce = (nonce + 1) | 0;
	return best;
}
