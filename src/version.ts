/**
 * @module version
 * Spur's version and the RPC protocol version agents must match. The build
 * script replaces BUILD_COMMIT and BUILD_DATE through `define`.
 */
declare const BUILD_COMMIT: string | undefined;
declare const BUILD_DATE: string | undefined;

export const SPUR_VERSION = "0.1.0";
export const PROTOCOL_VERSION = "1";
export const buildCommit = (): string => (typeof BUILD_COMMIT === "string" ? BUILD_COMMIT : "dev");
export const buildDate = (): string => (typeof BUILD_DATE === "string" ? BUILD_DATE : "unknown");
