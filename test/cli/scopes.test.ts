import { expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir, runGllam } from "../helpers.ts";

const dir = makeTempDir();
const db = join(dir, "tenants.db");
const gllam = (...args: string[]) => runGllam(["--db", db, ...args]);
const json = (...args: string[]) => {
  const run = gllam(...args, "--json");
  expect(run.stderr).toBe("");
  return JSON.parse(run.stdout);
};
/** Words only the secret tenant wrote: none may appear in anything the public tenant is shown. */
const SECRET_WORDS = ["secret", "Salary", "classified", "Green"];

test("two tenants record the same names; nothing the public one sees shows the secret one", () => {
  const secret = json("fact", "add", "Payroll", "uses", "Workday", "--scope", "secret", "--caveat", "classified detail");
  expect(secret).toMatchObject({ action: "inserted", subject: { id: "secret/payroll", created: true }, object: { id: "secret/workday", created: true } });
  const pub = json("fact", "add", "Payroll", "uses", "Workday", "--scope", "public", "--caveat", "open detail");
  expect(pub).toMatchObject({ action: "inserted", subject: { id: "public/payroll", created: true }, object: { id: "public/workday", created: true } });
  json("fact", "add", "Salary Ledger", "feeds", "Payroll", "--scope", "secret");
  json("fact", "add", "Payroll", "has_state", "Green", "--scope", "secret");
  const contested = json("fact", "add", "Payroll", "has_state", "Red", "--scope", "secret");
  expect(contested.contradictionId).toMatch(/^secret\/contradiction:/);

  const shown = [
    gllam("fact", "list", "Payroll", "--scope", "public"),
    gllam("fact", "history", "Payroll", "uses", "--scope", "public"),
    gllam("recall", "payroll", "salary", "ledger", "--entity", "Payroll", "--scope", "public", "--json"),
    gllam("path", "Payroll", "Workday", "--scope", "public"),
  ];
  for (const run of shown) {
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Workday");
    for (const word of SECRET_WORDS) expect(`${run.stdout}${run.stderr}`).not.toContain(word);
  }
  expect(shown[0]!.stdout).toContain("open detail");

  // Naming the secret tenant's things from the public scope fails exactly as naming nothing.
  const same = (crossed: string[], missing: string[], secretPart: string, ghostPart: string) => {
    const [a, b] = [gllam(...crossed), gllam(...missing)];
    expect(a.code).toBe(1);
    expect(a.stderr.replaceAll(secretPart, "X")).toBe(b.stderr.replaceAll(ghostPart, "X"));
    for (const word of SECRET_WORDS) expect(a.stderr.replaceAll(secretPart, "X")).not.toContain(word);
  };
  same(["path", "Payroll", "Salary Ledger", "--scope", "public"], ["path", "Payroll", "Pension Fund", "--scope", "public"], "Salary Ledger", "Pension Fund");
  same(["forget", "node", "secret/payroll", "--scope", "public"], ["forget", "node", "public/ghost", "--scope", "public"], "secret/payroll", "public/ghost");
  same(["fact", "invalidate", String(secret.linkId), "--scope", "public"], ["fact", "invalidate", "999", "--scope", "public"], String(secret.linkId), "999");
  same(["fact", "resolve", contested.contradictionId, "1", "--scope", "public"], ["fact", "resolve", "public/ghost", "1", "--scope", "public"], contested.contradictionId, "public/ghost");

  // The secret tenant's memory is intact.
  expect(gllam("fact", "list", "Payroll", "--scope", "secret").stdout).toContain("classified detail");
});

test("--scope is normalised the same way on every command: \" public \" is public", () => {
  const padded = gllam("recall", "payroll", "--entity", "Payroll", "--scope", " public ", "--json");
  expect(padded.code).toBe(0);
  expect(JSON.parse(padded.stdout)).toMatchObject({ scope: "public", focus: [{ node: { id: "public/payroll" } }] });
  expect(gllam("fact", "list", "payroll", "--scope", "\tpublic\n").stdout).toContain("open detail");
  const bad = gllam("recall", "payroll", "--scope", "team/a");
  expect(bad).toMatchObject({ code: 1, stdout: "" });
  expect(bad.stderr).toBe('gllam: invalid --scope "team/a": must not contain "/" [E_BAD_INPUT]\n');
});
