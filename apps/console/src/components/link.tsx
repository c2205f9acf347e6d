import type { ComponentChildren } from 'preact';
import { navigate } from '../routing/navigation.js';

/**
 * A link to another view: a real `<a href>` (open in a new tab, copy the address), followed
 * through the history API on a plain click.
 */
export function Link(props: { href: string; children: ComponentChildren; current?: boolean; class?: string; title?: string }) {
  const onClick = (event: MouseEvent): void => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.href);
  };
  return (
    <a href={props.href} onClick={onClick} class={props.class} title={props.title} aria-current={props.current ? 'page' : undefined}>
      {props.children}
    </a>
  );
}
