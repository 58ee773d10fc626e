/**
 * sbcast's node side (agent/file-bcast): what the user's shell said becomes the
 * errno and strerror text sbcast prints and exits with (oracle: File exists 17,
 * No such file or directory 2, Permission denied 13).
 */
import { describe, expect, it } from "vitest";
import { bcastFailure } from "../../../src/agent/file-bcast.ts";

describe("bcastFailure", () => {
  it("reads dash's messages", () => {
    expect(bcastFailure("sbcast: 3: cannot create /x/y: File exists\n")).toEqual({ errno: 17, error: "File exists" });
    expect(bcastFailure("sbcast: 3: cannot create /nonexistent/x: Directory nonexistent\n")).toEqual({ errno: 2, error: "No such file or directory" });
    expect(bcastFailure("sbcast: 3: cannot create /root/x: Permission denied\n")).toEqual({ errno: 13, error: "Permission denied" });
    expect(bcastFailure("cat: write error: No space left on device\n")).toEqual({ errno: 28, error: "No space left on device" });
  });

  it("an unknown message keeps its text, errno 1", () => {
    expect(bcastFailure("weird: Something odd")).toEqual({ errno: 1, error: "Something odd" });
    expect(bcastFailure("")).toEqual({ errno: 1, error: "Unknown error" });
  });
});
