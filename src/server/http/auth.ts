/** Who may talk to the server: loopback by default; elsewhere only with the bearer token. */
import { createHash, timingSafeEqual } from "node:crypto";
import { GllamError } from "../../gllam/types.ts";

/** Whether a host name or address only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** Refuses to serve beyond this machine without a token: anyone who reaches the port could read and erase memory. */
export function checkServeSecurity(host: string, token: string | undefined): void {
  if (token !== undefined && token.trim() === "") throw new GllamError("E_CONFIG", "the token (--token or $GLLAM_TOKEN) is empty");
  if (!isLoopbackHost(host) && token === undefined) {
    throw new GllamError(
      "E_CONFIG",
      `refusing to serve on ${host} without a token: any machine that reaches it could read and erase memory; give --token T (or $GLLAM_TOKEN), or serve on 127.0.0.1`,
    );
  }
}

// Hashing both sides gives equal lengths, so the comparison's time says nothing about the token.
const digest = (text: string) => createHash("sha256").update(text).digest();

/** E_UNAUTHORIZED unless the request carries `Authorization: Bearer <token>` (compared in constant time). */
export function authorize(request: Request, token: string | undefined): void {
  if (token === undefined) return;
  const given = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1]?.trim();
  if (given === undefined) throw new GllamError("E_UNAUTHORIZED", "this server needs `Authorization: Bearer <token>`");
  if (!timingSafeEqual(digest(given), digest(token))) throw new GllamError("E_UNAUTHORIZED", "wrong bearer token");
}
