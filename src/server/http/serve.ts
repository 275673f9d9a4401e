/** What `gllam serve` loads when it runs (the CLI imports it lazily): the security check and the server. */
export { checkServeSecurity } from "./auth.ts";
export { startHttpServer } from "./server.ts";
