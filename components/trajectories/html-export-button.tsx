// "Export HTML": a download of episodes as one self-contained HTML file (no script, no network
// needed to open it) to send to someone without the playground; lib/episodes/html-export.ts.
import { FileText } from "lucide-react";
import { buttonClasses } from "@/components/ui/button";

export function HtmlExportLink({ href, what }: { href: string; what: string }) {
  return (
    <a
      className={buttonClasses("secondary", "sm")}
      href={href}
      download
      title={`${what} as one HTML file that opens anywhere, offline: steps, outputs, rewards, the chart`}
    >
      <FileText aria-hidden="true" /> Export HTML
    </a>
  );
}
