import type { ButtonHTMLAttributes } from 'react';

interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  primary?: boolean;
  block?: boolean;
  loading?: boolean;
  children: string;
}

// antd puts a space between the two characters of a two-character Chinese label ("登 录"); so does this
const spaced = (label: string) => (/^[\u4e00-\u9fa5]{2}$/.test(label) ? `${label[0]} ${label[1]}` : label);

/** A large button as antd draws it, with its loading state. */
export function LiteButton({ primary, block, loading, children, className, ...rest }: ButtonProps) {
  return (
    <button
      className={['lite-btn', primary && 'lite-btn-primary', block && 'lite-btn-block', className]
        .filter(Boolean)
        .join(' ')}
      aria-busy={loading || undefined}
      {...rest}
      onClick={loading ? (e) => e.preventDefault() : rest.onClick}
    >
      {loading && <span className="lite-spin" aria-hidden />}
      <span>{spaced(children)}</span>
    </button>
  );
}
