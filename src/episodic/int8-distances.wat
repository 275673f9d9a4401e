;; The int8 cosine distances of a static KNN scan (src/episodic/int8-scan.ts), with WebAssembly SIMD.
;; Compiled to the bytes in int8-kernel.ts by scripts/make-int8-kernel.ts.
;;
;; norms(base, n, dims, out): for each of the n int8 vectors of `dims` (a multiple of 16) stored
;; one after the other from `base`, its norm sqrt(|v|^2) (the integer sum, then its root in double)
;; as f64 at out (8 bytes a vector): once for a chunk kept in memory (src/episodic/kept-chunks.ts),
;; before each scoring of a chunk read.
;;
;; normedDistances(qw, qNorm, base, n, dims, norms, out): for each of those vectors, whose norms
;; are at `norms`, writes at out[i] (f32) the cosine distance to the query at `qw` (widened to i16:
;; 2 * dims bytes, as an Int16Array of it) whose norm is qNorm, computed as sqlite-vec 0.1.9's
;; distance_cosine_int8 does: integer sums (exact), 1 - dot / (sqrt(|v|^2) * qNorm) in double,
;; rounded to float. Four vectors a pass: each 16 dimensions of the query are loaded once for the
;; four and never widened again, ~40% fewer instructions a byte than one vector a pass with the
;; query widened each time. Over chunks out of the CPU's caches (a scan of kept chunks at 1M
;; episodes) 160 chunks took 3.0-3.1 ms against 5.4-5.7, a chunk in cache 7 us against 10.
;; Integer sums do not depend on their order, so the distances are the same to the bit.
;;
;; dots3(q, base, n, dims, out): for each of the n int8 vectors of `dims` (a multiple of 16) from
;; `base`, its integer dot products with three int8 queries stored one after the other at `q`, as
;; three i32 at out (12 bytes a vector): one pass over the vectors for three queries (the word
;; space's scan, src/router/word-space.ts).
(module
  (memory (export "memory") 1)
  (func (export "norms") (param $base i32) (param $n i32) (param $dims i32) (param $out i32)
    (local $i i32) (local $mag v128) (local $lo v128) (local $hi v128)
    (block $done
      (loop $vectors
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $mag (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $lanes
          (local.set $lo (v128.load (i32.add (local.get $base) (local.get $i))))
          (local.set $hi (i16x8.extend_high_i8x16_s (local.get $lo)))
          (local.set $lo (i16x8.extend_low_i8x16_s (local.get $lo)))
          (local.set $mag (i32x4.add (local.get $mag)
            (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (local.get $lo))
                       (i32x4.dot_i16x8_s (local.get $hi) (local.get $hi)))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $lanes (i32.lt_u (local.get $i) (local.get $dims))))
        (f64.store (local.get $out)
          (f64.sqrt (f64.convert_i32_s (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $mag)) (i32x4.extract_lane 1 (local.get $mag)))
            (i32.add (i32x4.extract_lane 2 (local.get $mag)) (i32x4.extract_lane 3 (local.get $mag)))))))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $base (i32.add (local.get $base) (local.get $dims)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $vectors))))
  ;; One vector's distance from its integer dot product (four i32 lanes), its norm and the query's.
  (func $cosine (param $dot v128) (param $norm f64) (param $qNorm f64) (result f32)
    (f32.demote_f64 (f64.sub (f64.const 1) (f64.div
      (f64.convert_i32_s (i32.add
        (i32.add (i32x4.extract_lane 0 (local.get $dot)) (i32x4.extract_lane 1 (local.get $dot)))
        (i32.add (i32x4.extract_lane 2 (local.get $dot)) (i32x4.extract_lane 3 (local.get $dot)))))
      (f64.mul (local.get $norm) (local.get $qNorm))))))
  ;; $acc plus 16 dimensions' products: the vector's bytes $v widened, against the query's halves already widened.
  (func $dot16 (param $acc v128) (param $v v128) (param $ql v128) (param $qh v128) (result v128)
    (i32x4.add (local.get $acc)
      (i32x4.add (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (local.get $ql))
                 (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (local.get $qh)))))
  (func (export "normedDistances") (param $qw i32) (param $qNorm f64) (param $base i32) (param $n i32) (param $dims i32) (param $norms i32) (param $out i32)
    (local $i i32) (local $qi i32) (local $ql v128) (local $qh v128)
    (local $d0 v128) (local $d1 v128) (local $d2 v128) (local $d3 v128) (local $b1 i32) (local $b2 i32) (local $b3 i32)
    ;; Four vectors a pass: each 16 dimensions of the query are loaded once for the four.
    (block $done
      (loop $four
        (br_if $done (i32.lt_u (local.get $n) (i32.const 4)))
        (local.set $d0 (v128.const i32x4 0 0 0 0))
        (local.set $d1 (v128.const i32x4 0 0 0 0))
        (local.set $d2 (v128.const i32x4 0 0 0 0))
        (local.set $d3 (v128.const i32x4 0 0 0 0))
        (local.set $b1 (i32.add (local.get $base) (local.get $dims)))
        (local.set $b2 (i32.add (local.get $b1) (local.get $dims)))
        (local.set $b3 (i32.add (local.get $b2) (local.get $dims)))
        (local.set $i (i32.const 0))
        (loop $lanes
          (local.set $qi (i32.add (local.get $qw) (i32.shl (local.get $i) (i32.const 1))))
          (local.set $ql (v128.load (local.get $qi)))
          (local.set $qh (v128.load offset=16 (local.get $qi)))
          (local.set $d0 (call $dot16 (local.get $d0) (v128.load (i32.add (local.get $base) (local.get $i))) (local.get $ql) (local.get $qh)))
          (local.set $d1 (call $dot16 (local.get $d1) (v128.load (i32.add (local.get $b1) (local.get $i))) (local.get $ql) (local.get $qh)))
          (local.set $d2 (call $dot16 (local.get $d2) (v128.load (i32.add (local.get $b2) (local.get $i))) (local.get $ql) (local.get $qh)))
          (local.set $d3 (call $dot16 (local.get $d3) (v128.load (i32.add (local.get $b3) (local.get $i))) (local.get $ql) (local.get $qh)))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $lanes (i32.lt_u (local.get $i) (local.get $dims))))
        (f32.store (local.get $out) (call $cosine (local.get $d0) (f64.load (local.get $norms)) (local.get $qNorm)))
        (f32.store offset=4 (local.get $out) (call $cosine (local.get $d1) (f64.load offset=8 (local.get $norms)) (local.get $qNorm)))
        (f32.store offset=8 (local.get $out) (call $cosine (local.get $d2) (f64.load offset=16 (local.get $norms)) (local.get $qNorm)))
        (f32.store offset=12 (local.get $out) (call $cosine (local.get $d3) (f64.load offset=24 (local.get $norms)) (local.get $qNorm)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $norms (i32.add (local.get $norms) (i32.const 32)))
        (local.set $base (i32.add (local.get $b3) (local.get $dims)))
        (local.set $n (i32.sub (local.get $n) (i32.const 4)))
        (br $four)))
    ;; The last n mod 4, one at a time.
    (block $end
      (loop $one
        (br_if $end (i32.eqz (local.get $n)))
        (local.set $d0 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $lanes
          (local.set $qi (i32.add (local.get $qw) (i32.shl (local.get $i) (i32.const 1))))
          (local.set $d0 (call $dot16 (local.get $d0) (v128.load (i32.add (local.get $base) (local.get $i))) (v128.load (local.get $qi)) (v128.load offset=16 (local.get $qi))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $lanes (i32.lt_u (local.get $i) (local.get $dims))))
        (f32.store (local.get $out) (call $cosine (local.get $d0) (f64.load (local.get $norms)) (local.get $qNorm)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $norms (i32.add (local.get $norms) (i32.const 8)))
        (local.set $base (i32.add (local.get $base) (local.get $dims)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $one))))
  (func (export "dots3") (param $q i32) (param $base i32) (param $n i32) (param $dims i32) (param $out i32)
    (local $i i32) (local $lo v128) (local $hi v128) (local $qv v128) (local $a v128) (local $b v128) (local $c v128)
    (block $done
      (loop $vectors
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $a (v128.const i32x4 0 0 0 0))
        (local.set $b (v128.const i32x4 0 0 0 0))
        (local.set $c (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $lanes
          (local.set $lo (v128.load (i32.add (local.get $base) (local.get $i))))
          (local.set $hi (i16x8.extend_high_i8x16_s (local.get $lo)))
          (local.set $lo (i16x8.extend_low_i8x16_s (local.get $lo)))
          (local.set $qv (v128.load (i32.add (local.get $q) (local.get $i))))
          (local.set $a (i32x4.add (local.get $a)
            (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (i16x8.extend_low_i8x16_s (local.get $qv)))
                       (i32x4.dot_i16x8_s (local.get $hi) (i16x8.extend_high_i8x16_s (local.get $qv))))))
          (local.set $qv (v128.load (i32.add (i32.add (local.get $q) (local.get $dims)) (local.get $i))))
          (local.set $b (i32x4.add (local.get $b)
            (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (i16x8.extend_low_i8x16_s (local.get $qv)))
                       (i32x4.dot_i16x8_s (local.get $hi) (i16x8.extend_high_i8x16_s (local.get $qv))))))
          (local.set $qv (v128.load (i32.add (i32.add (local.get $q) (i32.shl (local.get $dims) (i32.const 1))) (local.get $i))))
          (local.set $c (i32x4.add (local.get $c)
            (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (i16x8.extend_low_i8x16_s (local.get $qv)))
                       (i32x4.dot_i16x8_s (local.get $hi) (i16x8.extend_high_i8x16_s (local.get $qv))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $lanes (i32.lt_u (local.get $i) (local.get $dims))))
        (i32.store (local.get $out)
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $a)) (i32x4.extract_lane 1 (local.get $a)))
                   (i32.add (i32x4.extract_lane 2 (local.get $a)) (i32x4.extract_lane 3 (local.get $a)))))
        (i32.store offset=4 (local.get $out)
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $b)) (i32x4.extract_lane 1 (local.get $b)))
                   (i32.add (i32x4.extract_lane 2 (local.get $b)) (i32x4.extract_lane 3 (local.get $b)))))
        (i32.store offset=8 (local.get $out)
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $c)) (i32x4.extract_lane 1 (local.get $c)))
                   (i32.add (i32x4.extract_lane 2 (local.get $c)) (i32x4.extract_lane 3 (local.get $c)))))
        (local.set $out (i32.add (local.get $out) (i32.const 12)))
        (local.set $base (i32.add (local.get $base) (local.get $dims)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $vectors)))))
