#!/usr/bin/env bash
# A strict LLM judge (the STRONG model MODEL at STRONG_TEXT_SERVER) grades each answer of
# OUT/results_<model>.jsonl against the gold answer: PASS or FAIL with a reason, one JSON line per
# question in OUT/graded_<model>.jsonl (resumable), the failures in OUT/failures_<model>.md, and the
# accuracy overall and by category (MemoryArena: by config, and by the subtask's position in its task). LoCoMo adversarial and LongMemEval abstention questions pass
# only when the answer says the memory does not hold it.
# shellcheck source=bench/qa/lib.sh disable=SC2016 # jq programs are single-quoted on purpose
source "$(dirname "$0")/lib.sh"
: "${STRONG_TEXT_SERVER:?set STRONG_TEXT_SERVER to the OpenAI-compatible server of the judge}"

tag=${MODEL//\//_}
results="$OUT/results_$tag.jsonl"
graded="$OUT/graded_$tag.jsonl"
touch "$graded"
server=${STRONG_TEXT_SERVER%/}
server=${server%/v1}
auth=()
[[ -n "${OPENROUTER_API_KEY:-}" ]] && auth=(-H "Authorization: Bearer $OPENROUTER_API_KEY")
prompt='You are a strict grader of answers to questions about a conversation. Compare the ANSWER with the GOLD answer.
PASS only when the answer states the same facts as the gold answer (same dates, names and numbers; wording may differ; extra correct detail is fine).
When the gold says the conversation does not mention it (adversarial or abstention), PASS only when the answer says it does not know.
When the gold lists rubric points, PASS only when the answer meets every one.
FAIL otherwise. Reply with one line: PASS: <reason> or FAIL: <reason>.'
total=$(wc -l <"$results")
done_count=0
while IFS= read -r line; do
  done_count=$((done_count + 1))
  id=$(jq -r '.id' <<<"$line")
  if grep -qF "\"id\":\"$id\"" "$graded"; then continue; fi
  user=$(jq -r '"QUESTION: \(.question)\nGOLD: \(.gold)\nANSWER: \(.answer)"' <<<"$line")
  body=$(jq -n --arg model "$MODEL" --arg system "$prompt" --arg user "$user" '{model: $model, temperature: 0, messages: [{role: "system", content: $system}, {role: "user", content: $user}]}')
  reply=$(curl -sS --fail-with-body --retry 3 -H "Content-Type: application/json" "${auth[@]}" -d "$body" "$server/v1/chat/completions")
  verdict=$(jq -r '.choices[0].message.content' <<<"$reply" | sed -n 's/^[^A-Z]*\(PASS\|FAIL\)[: ]*/\1\t/p' | head -n1)
  [[ -n "$verdict" ]] || verdict=$'FAIL\tthe judge gave no verdict'
  jq -c -n --argjson r "$line" --arg v "${verdict%%$'\t'*}" --arg why "${verdict#*$'\t'}" --argjson u "$(jq '.usage // {}' <<<"$reply")" \
    '$r + {verdict: $v, reason: $why, judge_tokens: (($u.prompt_tokens // 0) + ($u.completion_tokens // 0))}' >>"$graded"
  progress "$done_count" "$total" "answers graded"
done <"$results"
progress_done

{
  printf '# Failures of %s on %s\n\n' "$MODEL" "$DATASET"
  jq -r 'select(.verdict != "PASS") | "## \(.id) (\(.category))\n- question: \(.question)\n- gold: \(.gold)\n- answer: \(.answer)\n- judge: \(.reason)\n"' "$graded"
} >"$OUT/failures_$tag.md"
jq -s -r '
  def acc: (map(select(.verdict == "PASS")) | length) as $p | "\($p)/\(length) = \(if length > 0 then ($p * 1000 / length | floor) / 1000 else 0 end)";
  "accuracy \(acc)",
  (group_by(.category)[] | "  \(.[0].category): \(acc)"),
  (if any(.[]; .position) then "by subtask position", (group_by(.position)[] | "  subtask \(.[0].position): \(acc)") else empty end),
  "tokens: answers \(map(.prompt_tokens + .completion_tokens) | add), judge \(map(.judge_tokens) | add)"' "$graded" | tee "$OUT/accuracy_$tag.txt"
