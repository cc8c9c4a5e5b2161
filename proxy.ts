// Next's proxy: runs before every route Next serves (pages, APIs, static files, `next dev` too) and
// applies the app's request policy (lib/security/request-policy.ts) with the settings the server
// entry uses (lib/security/policy-config.ts), so dev and production refuse the same requests.
import { type NextRequest, NextResponse } from "next/server";
import { appPolicyFromEnv } from "@/lib/security/policy-config";
import { checkRequest } from "@/lib/security/request-policy";

export function proxy(request: NextRequest) {
  const url = new URL(request.url);
  const answer = checkRequest(
    {
      method: request.method,
      target: url.pathname + url.search,
      header: (name) => request.headers.get(name),
    },
    appPolicyFromEnv(),
  );
  if (!answer) return NextResponse.next();
  const headers = new Headers(answer.headers);
  // Next wants absolute redirect targets from a proxy.
  const location = headers.get("location");
  if (location) headers.set("location", new URL(location, url).href);
  return new NextResponse(answer.body === "" ? null : answer.body, { status: answer.status, headers });
}
