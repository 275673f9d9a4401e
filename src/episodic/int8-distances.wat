;; The int8 cosine distances of a static KNN scan (src/episodic/int8-scan.ts), with WebAssembly SIMD.
;; Compiled to the bytes in int8-kernel.ts by scripts/make-int8-kernel.ts.
;;
;; distances(q, qNorm, base, n, dims, out): for each of the n int8 vectors of `dims` (a multiple of
;; 16) stored one after the other from `base`, writes at out[i] (f32) the cosine distance to the
;; int8 query at `q` whose norm is qNorm, computed as sqlite-vec 0.1.9's distance_cosine_int8 does:
;; integer sums (exact), 1 - dot / (sqrt(|v|^2) * qNorm) in double, rounded to float.
;;
;; norms(base, n, dims, out): each vector's norm, sqrt(|v|^2) as distances computes it, as f64 at
;; out (8 bytes a vector): computed once for a chunk kept in memory (src/episodic/kept-chunks.ts).
;;
;; normedDistances(q, qNorm, base, n, dims, norms, out): what distances writes, for vectors whose
;; norms are at `norms` (f64, as norms writes them): the dot products alone, half the SIMD work.
;;
;; dots3(q, base, n, dims, out): for each of the n int8 vectors of `dims` (a multiple of 16) from
;; `base`, its integer dot products with three int8 queries stored one after the other at `q`, as
;; three i32 at out (12 bytes a vector): one pass over the vectors for three queries (the word
;; space's scan, src/router/word-space.ts).
(module
  (memory (export "memory") 1)
  (func (export "distances") (param $q i32) (param $qNorm f64) (param $base i32) (param $n i32) (param $dims i32) (param $out i32)
    (local $i i32) (local $dot v128) (local $mag v128) (local $lo v128) (local $hi v128) (local $qv v128)
    (block $done
      (loop $vectors
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $dot (v128.const i32x4 0 0 0 0))
        (local.set $mag (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $lanes
          ;; 16 dimensions: widen to two i16x8 halves, multiply pairs and add them into i32x4 sums.
          (local.set $lo (v128.load (i32.add (local.get $base) (local.get $i))))
          (local.set $hi (i16x8.extend_high_i8x16_s (local.get $lo)))
          (local.set $lo (i16x8.extend_low_i8x16_s (local.get $lo)))
          (local.set $qv (v128.load (i32.add (local.get $q) (local.get $i))))
          (local.set $dot (i32x4.add (local.get $dot)
            (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (i16x8.extend_low_i8x16_s (local.get $qv)))
                       (i32x4.dot_i16x8_s (local.get $hi) (i16x8.extend_high_i8x16_s (local.get $qv))))))
          (local.set $mag (i32x4.add (local.get $mag)
            (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (local.get $lo))
                       (i32x4.dot_i16x8_s (local.get $hi) (local.get $hi)))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $lanes (i32.lt_u (local.get $i) (local.get $dims))))
        (f32.store (local.get $out)
          (f32.demote_f64
            (f64.sub (f64.const 1)
              (f64.div
                (f64.convert_i32_s (i32.add
                  (i32.add (i32x4.extract_lane 0 (local.get $dot)) (i32x4.extract_lane 1 (local.get $dot)))
                  (i32.add (i32x4.extract_lane 2 (local.get $dot)) (i32x4.extract_lane 3 (local.get $dot)))))
                (f64.mul
                  (f64.sqrt (f64.convert_i32_s (i32.add
                    (i32.add (i32x4.extract_lane 0 (local.get $mag)) (i32x4.extract_lane 1 (local.get $mag)))
                    (i32.add (i32x4.extract_lane 2 (local.get $mag)) (i32x4.extract_lane 3 (local.get $mag))))))
                  (local.get $qNorm))))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $base (i32.add (local.get $base) (local.get $dims)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $vectors))))
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
  (func (export "normedDistances") (param $q i32) (param $qNorm f64) (param $base i32) (param $n i32) (param $dims i32) (param $norms i32) (param $out i32)
    (local $i i32) (local $dot v128) (local $lo v128) (local $qv v128)
    (block $done
      (loop $vectors
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $dot (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $lanes
          (local.set $lo (v128.load (i32.add (local.get $base) (local.get $i))))
          (local.set $qv (v128.load (i32.add (local.get $q) (local.get $i))))
          (local.set $dot (i32x4.add (local.get $dot)
            (i32x4.add (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $lo)) (i16x8.extend_low_i8x16_s (local.get $qv)))
                       (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $lo)) (i16x8.extend_high_i8x16_s (local.get $qv))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $lanes (i32.lt_u (local.get $i) (local.get $dims))))
        (f32.store (local.get $out)
          (f32.demote_f64
            (f64.sub (f64.const 1)
              (f64.div
                (f64.convert_i32_s (i32.add
                  (i32.add (i32x4.extract_lane 0 (local.get $dot)) (i32x4.extract_lane 1 (local.get $dot)))
                  (i32.add (i32x4.extract_lane 2 (local.get $dot)) (i32x4.extract_lane 3 (local.get $dot)))))
                (f64.mul (f64.load (local.get $norms)) (local.get $qNorm))))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $norms (i32.add (local.get $norms) (i32.const 8)))
        (local.set $base (i32.add (local.get $base) (local.get $dims)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $vectors))))
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
