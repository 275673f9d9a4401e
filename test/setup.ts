/** Preloaded by `bun test` (bunfig.toml): every test, and every gllam it spawns, uses the test static table. */
import { ensureTestStaticTable } from "./static-table.ts";

process.env.GLLAM_STATIC_TABLE = await ensureTestStaticTable();
