import type { CSSProperties } from 'react';

/**
 * The brand panel's picture: a cloud linked to a printer and a terminal. Light shapes are drawn in
 * currentColor, details in `accent`, so it sits on any of the theme's primary colours (SPEC §2 lists nine).
 */
export function BrandIllustration({
  accent,
  ok,
  className,
  style,
}: {
  accent: string;
  ok: string;
  className?: string;
  style?: CSSProperties;
}) {
  return (
    <svg
      viewBox="0 0 480 340"
      role="img"
      aria-hidden
      className={className}
      style={{ width: '100%', height: 'auto', ...style }}
    >
      <ellipse cx="240" cy="318" rx="210" ry="16" fill="currentColor" opacity="0.1" />
      {/* cloud */}
      <path
        d="M150 112c-22 0-40-16-40-36s18-36 40-36c4-22 25-38 50-38 22 0 41 12 48 30 5-2 11-3 17-3 24 0 44 18 44 40s-20 43-44 43z"
        fill="currentColor"
        opacity="0.22"
      />
      <path d="M190 60h80M176 82h118" stroke="currentColor" strokeWidth="6" strokeLinecap="round" opacity="0.55" />
      {/* links from the cloud */}
      <path
        d="M210 114v40c0 14-10 22-24 22h-40"
        fill="none"
        stroke="currentColor"
        strokeWidth="3"
        strokeDasharray="6 8"
        opacity="0.65"
      />
      <path
        d="M270 114v52c0 12 8 18 20 18h60"
        fill="none"
        stroke="currentColor"
        strokeWidth="3"
        strokeDasharray="6 8"
        opacity="0.65"
      />
      <circle cx="210" cy="114" r="6" fill="currentColor" />
      <circle cx="270" cy="114" r="6" fill="currentColor" />
      {/* printer */}
      <g transform="translate(40 160)">
        <rect x="30" y="0" width="110" height="38" rx="6" fill="currentColor" opacity="0.4" />
        <rect x="0" y="30" width="170" height="80" rx="14" fill="currentColor" />
        <rect x="20" y="52" width="34" height="8" rx="4" fill={accent} opacity="0.35" />
        <circle cx="146" cy="56" r="6" fill={ok} />
        <rect x="28" y="96" width="114" height="64" rx="4" fill="currentColor" stroke={accent} strokeOpacity="0.2" />
        <path d="M44 116h80M44 130h64M44 144h72" stroke={accent} strokeWidth="5" strokeLinecap="round" opacity="0.45" />
      </g>
      {/* terminal */}
      <g transform="translate(350 150)">
        <rect x="0" y="0" width="96" height="150" rx="14" fill="currentColor" />
        <rect x="10" y="16" width="76" height="104" rx="6" fill={accent} opacity="0.18" />
        <path d="M24 44h48M24 60h36M24 76h44" stroke={accent} strokeWidth="5" strokeLinecap="round" opacity="0.5" />
        <circle cx="48" cy="135" r="6" fill={accent} opacity="0.3" />
        <path
          d="M78-14a22 22 0 0 1 22 22M78-28a36 36 0 0 1 36 36"
          fill="none"
          stroke="currentColor"
          strokeWidth="4"
          strokeLinecap="round"
          opacity="0.75"
        />
      </g>
      <g fill="currentColor" opacity="0.6">
        <circle cx="60" cy="60" r="4" />
        <circle cx="420" cy="70" r="5" />
        <circle cx="390" cy="30" r="3" />
        <circle cx="90" cy="120" r="3" />
      </g>
    </svg>
  );
}
