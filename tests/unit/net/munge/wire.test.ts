/**
 * The munged wire codec (src/net/munge/wire.ts): bytes observed from a real munged 0.5.15,
 * round trips through the daemon-side encoders, and malformed input refused without throwing.
 */
import { describe, expect, it } from "vitest";
import {
  MUNGE_HEADER_BYTES, MUNGE_ID_ANY, MsgType, decodeDecodeResponse, decodeEncodeResponse, decodeHeader, decodeRequest,
  encodeDecodeResponse, encodeEncodeResponse, encodeHeader, encodeRequest, mungeErrorText, parseDecodeRequest, parseEncodeRequest,
  type DecodeResponse,
} from "../../../../src/net/munge/wire.ts";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, "hex"));
const body = (framed: Uint8Array): Uint8Array => framed.subarray(MUNGE_HEADER_BYTES);

describe("munge message header", () => {
  it("is magic, version 4, type, retry, big-endian body length", () => {
    expect(hex(encodeHeader({ type: MsgType.encodeRequest, retry: 1, bodyBytes: 0x90 }))).toBe("00606d4b" + "04" + "02" + "01" + "00000090");
  });
  it("reads back what it writes, and refuses another magic, version or a huge body", () => {
    expect(decodeHeader(encodeHeader({ type: 5, retry: 0, bodyBytes: 77 }))).toEqual({ ok: true, value: { type: 5, retry: 0, bodyBytes: 77 } });
    expect(decodeHeader(bytes("00606d4c0403000000000a")).ok).toBe(false);
    const v3 = decodeHeader(bytes("00606d4b0303000000000a"));
    expect(!v3.ok && v3.error.message).toContain("version 3");
    expect(decodeHeader(bytes("00606d4b04030000ffffff")).ok).toBe(false);
    expect(decodeHeader(bytes("00606d4b04")).ok).toBe(false);
  });
});

describe("encode request and response", () => {
  it("lays out the request as libmunge does (cipher, MAC, zip default; no realm; ttl, auth ids, payload)", () => {
    const framed = encodeRequest({ ttlSec: 60, authUid: MUNGE_ID_ANY, authGid: MUNGE_ID_ANY, payload: new Uint8Array([0x68, 0x69]) });
    expect(hex(framed)).toBe("00606d4b" + "04" + "02" + "00" + "00000016" + "010101" + "00" + "0000003c" + "ffffffff" + "ffffffff" + "00000002" + "6869");
    expect(parseEncodeRequest(body(framed))).toEqual({ ok: true, value: { ttlSec: 60, authUid: MUNGE_ID_ANY, authGid: MUNGE_ID_ANY, payload: new Uint8Array([0x68, 0x69]) } });
  });
  it("reads a real munged's refusal (MAC type NONE): error 11 with its text", () => {
    const observed = bytes("00606d4b040300000000190b13496e76616c6964204d4143207479706520300000000000");
    const h = decodeHeader(observed.subarray(0, MUNGE_HEADER_BYTES));
    expect(h).toEqual({ ok: true, value: { type: MsgType.encodeResponse, retry: 0, bodyBytes: 0x19 } });
    expect(decodeEncodeResponse(body(observed))).toEqual({ ok: true, value: { errorNum: 11, errorText: "Invalid MAC type 0", credential: "" } });
  });
  it("reads a credential and drops its NUL", () => {
    const framed = encodeEncodeResponse({ errorNum: 0, errorText: "", credential: "MUNGE:AwQ=:" });
    expect(hex(body(framed))).toBe("0000" + "0000000c" + Buffer.from("MUNGE:AwQ=:\0").toString("hex"));
    expect(decodeEncodeResponse(body(framed))).toEqual({ ok: true, value: { errorNum: 0, errorText: "", credential: "MUNGE:AwQ=:" } });
  });
  it("refuses a truncated or over-long body instead of reading past it", () => {
    const good = body(encodeEncodeResponse({ errorNum: 0, errorText: "", credential: "MUNGE:x:" }));
    expect(decodeEncodeResponse(good.subarray(0, good.length - 1)).ok).toBe(false);
    expect(decodeEncodeResponse(Uint8Array.from([...good, 0])).ok).toBe(false);
    expect(decodeEncodeResponse(bytes("00ff")).ok).toBe(false);
  });
});

describe("decode request and response", () => {
  const answer: DecodeResponse = {
    errorNum: 17, errorText: "Replayed credential", cipher: 4, mac: 5, zip: 0, realm: "", ttlSec: 300, originAddr: "10.9.0.3",
    encodeTime: 1796404297, decodeTime: 1796404298, uid: 1001, gid: 1002, authUid: MUNGE_ID_ANY, authGid: MUNGE_ID_ANY, payload: new Uint8Array([7]),
  };
  it("sends the credential with its NUL, length-prefixed", () => {
    const framed = decodeRequest("MUNGE:ab:");
    expect(hex(framed)).toBe("00606d4b" + "04" + "04" + "00" + "0000000e" + "0000000a" + Buffer.from("MUNGE:ab:\0").toString("hex"));
    expect(parseDecodeRequest(body(framed))).toEqual({ ok: true, value: "MUNGE:ab:" });
  });
  it("round-trips every field, the origin address as 4 bytes", () => {
    const framed = encodeDecodeResponse(answer);
    expect(hex(body(framed)).slice(0, 6)).toBe("1114" + "52"); // error 17, text length 20 (19 and its NUL), 'R'
    expect(decodeDecodeResponse(body(framed))).toEqual({ ok: true, value: answer });
  });
  it("reads a refusal without an origin (wrong key: munged knows nothing of the sender)", () => {
    const wrongKey = { ...answer, errorNum: 14, errorText: "Invalid credential", originAddr: "", uid: MUNGE_ID_ANY, gid: MUNGE_ID_ANY, payload: new Uint8Array(0) };
    expect(decodeDecodeResponse(body(encodeDecodeResponse(wrongKey)))).toEqual({ ok: true, value: wrongKey });
  });
  it("refuses a truncated answer", () => {
    const b = body(encodeDecodeResponse(answer));
    for (const cut of [1, 5, 30, b.length - 1]) expect(decodeDecodeResponse(b.subarray(0, cut)).ok).toBe(false);
  });
});

describe("error text", () => {
  it("prefers munged's own words, else the code's", () => {
    expect(mungeErrorText(15)).toBe("Expired credential");
    expect(mungeErrorText(8, "Failed to base64-decode credential")).toBe("Failed to base64-decode credential");
    expect(mungeErrorText(99)).toBe("Unknown error 99");
  });
});
