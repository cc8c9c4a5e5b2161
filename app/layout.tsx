import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TopBar } from "@/components/layout/top-bar";
import { THEME_INIT_SCRIPT } from "@/components/ui/theme-script";
import "./globals.css";
import { Providers } from "./providers";

export const metadata: Metadata = {
  title: { default: "ORS Playground", template: "%s · ORS Playground" },
  description: "Browse, run and record Open Reward Standard environments",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* Applies the saved theme before first paint (no flash of the wrong theme). */}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script of ours */}
        <script dangerouslySetInnerHTML={{ __html: THEME_INIT_SCRIPT }} />
      </head>
      <body className="min-h-screen bg-white font-sans text-sm text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <Providers>
          <a
            href="#main"
            className="sr-only focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-zinc-900"
          >
            Skip to content
          </a>
          <TopBar />
          <div id="main" className="min-h-[calc(100vh-3rem)]">
            {children}
          </div>
        </Providers>
      </body>
    </html>
  );
}
