/**
 * @module net/wireguard-keys
 * WireGuard keys with node:crypto's X25519, in the form `wg genkey` / `wg pubkey` print:
 * 32 raw bytes in base64. The private key is clamped as `wg genkey` clamps it (X25519
 * clamps on use anyway, so the public key is the same either way).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";

export interface WgKeyPair {
  privateKey: string;
  publicKey: string;
}

/** PKCS#8 DER header of an X25519 private key; the 32 key bytes follow it. */
const PKCS8_X25519_PREFIX = Buffer.from("302e020100300506032b656e04220420", "hex");

const fromB64url = (s: string): Buffer => Buffer.from(s, "base64url");

/** The base64 public key of a base64 private key (`wg pubkey`). */
export function wgPublicKey(privateKey: string): string {
  const raw = Buffer.from(privateKey, "base64");
  if (raw.length !== 32) throw new Error("a WireGuard private key is 32 bytes of base64");
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_X25519_PREFIX, raw]), format: "der", type: "pkcs8" });
  const jwk = createPublicKey(key).export({ format: "jwk" });
  return fromB64url(jwk.x ?? "").toString("base64");
}

/** A fresh key pair (`wg genkey`, then `wg pubkey`). */
export function wgGenKey(): WgKeyPair {
  const { privateKey } = generateKeyPairSync("x25519");
  const raw = fromB64url(privateKey.export({ format: "jwk" }).d ?? "");
  raw[0] = (raw[0] ?? 0) & 248;
  raw[31] = ((raw[31] ?? 0) & 127) | 64;
  const priv = raw.toString("base64");
  return { privateKey: priv, publicKey: wgPublicKey(priv) };
}
