// Next's proxy: applies the app's request policy (lib/security/request-policy.ts, with the settings
// of lib/security/policy-config.ts) inside Next too, so that Next run on its own (`next start`,
// `next dev`) still refuses foreign Hosts, cross-site reads and requests without the access token.
// The server entry (lib/app-server) applies the same policy to every request before Next sees it.
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
    appPolicyFromEnv(process.env),
  );
  if (!answer) return NextResponse.next();
  const headers = new Headers(answer.headers);
  // Next wants absolute redirect targets from a proxy.
  const location = headers.get("location");
  if (location) headers.set("location", new URL(location, url).href);
  return new NextResponse(answer.body === "" ? null : answer.body, { status: answer.status, headers });
}

// Requests with a body skip the proxy: for the proxy Next copies a request's body into memory and
// hands the route at most `proxyClientMaxBodySize` (10 MB) of it, silently cut, which would break
// the 50 MB import and the relay's 16 MB bodies. The server entry has checked those already.
export const config = {
  matcher: [
    {
      source: "/:path*",
      missing: [
        { type: "header", key: "content-length" },
        { type: "header", key: "transfer-encoding" },
      ],
    },
  ],
};
