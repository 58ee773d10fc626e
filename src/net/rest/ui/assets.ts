/**
 * @module rest/ui/assets
 * The page's three files, read as text when the executable is built (Bun's `type: "text"`
 * import; vitest loads them through the small plugin in vitest.config.ts), so the page
 * needs no file on disk and nothing from the network.
 */
import html from "./assets/page.html" with { type: "text" };
import css from "./assets/page.css" with { type: "text" };
import js from "./assets/page.js" with { type: "text" };

// bun-types declare *.html as an HTMLBundle (its bundler import); with type "text" it is the text.
export const PAGE_HTML = html as unknown as string;
export const PAGE_CSS: string = css;
export const PAGE_JS: string = js;
