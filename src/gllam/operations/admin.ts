/** Operations on the memory file as a whole: a consistent backup, and the doctor's checks. */
import * as v from "valibot";
import type { BackupReport } from "../../maintenance/backup.ts";
import type { DoctorReport } from "../../maintenance/doctor.ts";
import { defineOperation } from "../operation.ts";

export const backup = defineOperation({
  name: "backup",
  summary: "Copy the memory file consistently while other processes write (VACUUM INTO), to a path on the machine that runs gllam; an existing file only with force",
  input: v.object({ out: v.pipe(v.string(), v.trim(), v.nonEmpty("must not be empty"), v.maxLength(4096)), force: v.optional(v.boolean(), false) }),
  readOnly: true,
  opens: { readOnly: true, quietDrift: true },
  run: (gllam, input) => gllam.backup(input.out, { force: input.force }),
  toText: (report: BackupReport) => `backed up to ${report.path}: ${(report.bytes / 1024 / 1024).toFixed(1)} MiB in ${report.seconds.toFixed(2)} s`,
});

export function formatDoctorReport(report: DoctorReport): string {
  const lines = [`${report.path}:`, ...report.checks.map((check) => `${check.ok ? "ok  " : "FIX "} ${check.name}: ${check.detail}`)];
  for (const finding of report.findings) lines.push("", `${finding.check}: ${finding.problem}`, `  fix: ${finding.fix}`);
  lines.push("", report.healthy ? "healthy" : `${report.findings.length} finding(s)`);
  return lines.join("\n");
}

export const doctor = defineOperation({
  name: "doctor",
  summary: "Check the memory file (integrity, full-text index, references, embedding drift, queued vectors, interrupted jobs, WAL size, static table) and say what to do about each finding",
  input: v.optional(v.object({}), {}),
  // It changes nothing, but FTS5's integrity-check needs the writer (in a transaction rolled back).
  readOnly: false,
  opens: { create: false, quietDrift: true },
  run: (gllam) => gllam.doctor(),
  toText: formatDoctorReport,
});
