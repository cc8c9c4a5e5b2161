// What the client tests share.
import { expect } from "vitest";
import { OrsClientError } from "@/lib/ors/client";

/** The OrsClientError `p` rejects with (fails the test if it resolves or rejects otherwise). */
export async function rejection(p: Promise<unknown>): Promise<OrsClientError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(OrsClientError);
    return err as OrsClientError;
  }
  throw new Error("expected a rejection");
}
