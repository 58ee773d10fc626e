import { describe, expect, it } from "vitest";
import { signalByName, signalName, signalNumber } from "../../../src/compat/signals.ts";

describe("compat/signals: the one signal table", () => {
  it("numbers follow Linux's (kill -l)", () => {
    expect([1, 2, 7, 9, 10, 15, 17, 19, 20, 31].map(signalName)).toEqual(["HUP", "INT", "BUS", "KILL", "USR1", "TERM", "CHLD", "STOP", "TSTP", "SYS"]);
    expect(signalName(0)).toBeUndefined();
    expect(signalName(34)).toBeUndefined();
  });
  it("reads names in any case, with or without SIG, and the aliases", () => {
    expect(["term", "SIGTERM", "SigUsr1", "iot", "SIGPOLL", "cld"].map(signalByName)).toEqual([15, 15, 10, 6, 29, 17]);
    expect(signalByName("NOPE")).toBeUndefined();
    expect(signalByName("9")).toBeUndefined();
  });
  it("numbers 1-64 are signals, 0 and 65 are not", () => {
    expect(["1", "64", "0", "65", "kill"].map(signalNumber)).toEqual([1, 64, undefined, undefined, 9]);
  });
});
