// The card every panel sits in, its header and body; SectionCard is the usual whole: a titled card
// (and what sits at the header's right) over its body.
import type { ReactNode } from "react";
import { styled } from "./styled";

export const Card = styled(
  "div",
  "rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900/40",
);

export const CardHeader = styled(
  "div",
  "flex items-center justify-between gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800",
);

export const CardTitle = styled("h2", "text-sm font-semibold text-zinc-900 dark:text-zinc-100");

export const CardBody = styled("div", "p-3");

/** A card with a title (its id, for an aria-labelledby elsewhere) and, at the header's right, `aside`. */
export function SectionCard({
  title,
  titleId,
  aside,
  className,
  bodyClassName,
  children,
}: {
  title: ReactNode;
  titleId?: string;
  aside?: ReactNode;
  className?: string;
  bodyClassName?: string;
  children: ReactNode;
}) {
  return (
    <Card className={className}>
      <CardHeader>
        <CardTitle id={titleId}>{title}</CardTitle>
        {aside}
      </CardHeader>
      <CardBody className={bodyClassName}>{children}</CardBody>
    </Card>
  );
}
