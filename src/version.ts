/**
 * @module version
 * Spur's version and the RPC protocol version agents must match. The build
 * script replaces BUILD_COMMIT and BUILD_DATE through `define`, and may replace
 * BUILD_VERSION / BUILD_PROTOCOL (`--version`, `--protocol`) for release builds
 * and for the rolling-upgrade test, which needs a "newer" binary.
 */
declare const BUILD_COMMIT: string | undefined;
declare const BUILD_DATE: string | undefined;
declare const BUILD_VERSION: string | undefined;
declare const BUILD_PROTOCOL: string | undefined;

export const SPUR_VERSION = typeof BUILD_VERSION === "string" ? BUILD_VERSION : "0.1.0";
/** Bumped only by a wire change old and new daemons cannot both understand (docs/upgrade.md). */
export const PROTOCOL_VERSION = typeof BUILD_PROTOCOL === "string" ? BUILD_PROTOCOL : "1";
export const buildCommit = (): string => (typeof BUILD_COMMIT === "string" ? BUILD_COMMIT : "dev");
export const buildDate = (): string => (typeof BUILD_DATE === "string" ? BUILD_DATE : "unknown");
