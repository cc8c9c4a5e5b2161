// styled(): a component that is one HTML element with its classes, the caller's className added
// after them (card.tsx, kbd.tsx and the input are such elements).
import type { ComponentPropsWithoutRef, ElementType, JSX } from "react";
import { cn } from "@/lib/ui/cn";

/** The `tag` element with the classes `base`, then the caller's className and props. */
export function styled<T extends keyof JSX.IntrinsicElements>(tag: T, base: string) {
  const Tag = tag as ElementType;
  return function Styled({ className, ...props }: ComponentPropsWithoutRef<T>) {
    return <Tag className={cn(base, className as string | undefined)} {...props} />;
  };
}
