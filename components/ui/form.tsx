// A form the page handles itself: submitting it runs `onSubmit` instead of loading a page.
import type { FormHTMLAttributes } from "react";

export function Form({
  onSubmit,
  ...props
}: Omit<FormHTMLAttributes<HTMLFormElement>, "onSubmit"> & { onSubmit: () => void }) {
  return (
    <form
      {...props}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    />
  );
}
