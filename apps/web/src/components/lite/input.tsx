import EyeInvisibleOutlined from '@ant-design/icons-svg/es/asn/EyeInvisibleOutlined';
import EyeOutlined from '@ant-design/icons-svg/es/asn/EyeOutlined';
import type { IconDefinition } from '@ant-design/icons-svg/es/types';
import { useState, type InputHTMLAttributes, type ReactNode } from 'react';
import { LiteIcon } from './icon';

interface FieldProps {
  /** The message under the field, when its value is wrong. */
  error?: string | null;
  /** id of the input, for the message's link to it. */
  id: string;
  children: ReactNode;
  className?: string;
}

/** A form row: its control and, when there is one, the problem with it below (announced to screen readers). */
export function LiteField({ error, id, children, className }: FieldProps) {
  return (
    <div className={['lite-field', error ? 'has-error' : '', className].filter(Boolean).join(' ')}>
      {children}
      {error && (
        <div className="lite-field-help" id={`${id}_help`} role="alert">
          {error}
        </div>
      )}
    </div>
  );
}

interface InputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'prefix' | 'type'> {
  id: string;
  prefix?: IconDefinition;
  invalid?: boolean;
  /** A password field with a show/hide switch; its labels come from the caller (translated). */
  password?: { show: string; hide: string };
}

/** A large input with an icon in front, as antd's `<Input size="large" prefix>` draws it. */
export function LiteInput({ id, prefix, invalid, password, ...rest }: InputProps) {
  const [visible, setVisible] = useState(false);
  return (
    <span className="lite-affix">
      {prefix && <LiteIcon icon={prefix} />}
      <input
        id={id}
        type={password && !visible ? 'password' : 'text'}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? `${id}_help` : undefined}
        {...rest}
      />
      {password && (
        <button
          type="button"
          className="lite-affix-toggle"
          aria-label={visible ? password.hide : password.show}
          aria-pressed={visible}
          onClick={() => setVisible((v) => !v)}
        >
          <LiteIcon icon={visible ? EyeOutlined : EyeInvisibleOutlined} />
        </button>
      )}
    </span>
  );
}
