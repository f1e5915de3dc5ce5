// The screen's <h1>, focused when the screen opens so keyboard and screen-reader users start there.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function PageHeading({ children, focusKey }: { children: ComponentChildren; focusKey: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus({ preventScroll: false });
  }, [focusKey]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}
