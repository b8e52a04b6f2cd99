import {
  BoldOutlined,
  CodeOutlined,
  ItalicOutlined,
  LinkOutlined,
  OrderedListOutlined,
  PictureOutlined,
  RedoOutlined,
  StrikethroughOutlined,
  UnderlineOutlined,
  UndoOutlined,
  UnorderedListOutlined,
} from '@ant-design/icons';
import Image from '@tiptap/extension-image';
import TextAlign from '@tiptap/extension-text-align';
import { Placeholder } from '@tiptap/extensions';
import { EditorContent, useEditor, useEditorState, type Editor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { App, Button, Divider, Flex, Input, Popover, Progress, Tooltip, theme } from 'antd';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { uploadFile } from '@/lib/request';
import './rich-text.css';
import { checkImageFile, IMAGE_ACCEPT_ATTR } from '@/lib/upload-check';

/**
 * An uploaded image: `src` is the signed URL the upload answered (it shows now), `data-object-key` the key the
 * server stores it by (lib/rich-html.ts on the server signs a fresh URL whenever the HTML is read).
 */
const ObjectImage = Image.extend({
  addAttributes() {
    return {
      ...this.parent?.(),
      'data-object-key': {
        default: null,
        parseHTML: (el) => el.getAttribute('data-object-key'),
        renderHTML: (attrs) => (attrs['data-object-key'] ? { 'data-object-key': attrs['data-object-key'] } : {}),
      },
    };
  },
});

export interface RichTextEditorProps {
  /** The HTML; the editor follows a new value only when it differs from what it holds (a reset, a loaded record). */
  value?: string;
  onChange?: (html: string) => void;
  placeholder?: string;
  /** The height of the writing area before it grows, in px. */
  minHeight?: number;
  disabled?: boolean;
  'aria-label'?: string;
  'data-testid'?: string;
}

const EMPTY = '<p></p>';

/**
 * The console's rich-text editor (Tiptap): headings, marks, lists, quotes, code, links, alignment and images
 * uploaded through the upload-token flow (picked, pasted or dropped). Works inside an antd Form.Item (value /
 * onChange). What it writes is sanitised by the server when saved and by DOMPurify when shown (`RichHtml`).
 */
export function RichTextEditor({
  value,
  onChange,
  placeholder,
  minHeight = 160,
  disabled,
  'aria-label': ariaLabel,
  'data-testid': testId,
}: RichTextEditorProps) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { message } = App.useApp();
  const [uploading, setUploading] = useState<number | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;

  const uploadImages = async (editor: Editor, files: File[], at?: number) => {
    for (const file of files) {
      const problem = checkImageFile(file);
      if (problem) {
        message.error(t(`editor.image.${problem}`));
        continue;
      }
      setUploading(0);
      try {
        const { key, url } = await uploadFile(file, (p) => setUploading(Math.min(99, p)));
        const image = { type: 'image', attrs: { src: url, alt: file.name.slice(0, 100), 'data-object-key': key } };
        if (at === undefined) editor.chain().focus().insertContent(image).run();
        else editor.chain().focus().insertContentAt(at, image).run();
      } catch {
        // the request layer has shown the server's reason
      } finally {
        setUploading(null);
      }
    }
  };
  const uploadRef = useRef(uploadImages);
  uploadRef.current = uploadImages;

  const editor = useEditor({
    extensions: [
      StarterKit.configure({
        heading: { levels: [2, 3, 4] },
        link: { openOnClick: false, autolink: true, protocols: ['http', 'https', 'mailto'] },
      }),
      ObjectImage.configure({ inline: false, allowBase64: false }),
      TextAlign.configure({ types: ['heading', 'paragraph'] }),
      Placeholder.configure({ placeholder: placeholder ?? '' }),
    ],
    content: value || EMPTY,
    editable: !disabled,
    immediatelyRender: true,
    editorProps: {
      attributes: {
        class: 'cpc-rich-editor',
        role: 'textbox',
        'aria-multiline': 'true',
        ...(ariaLabel ? { 'aria-label': ariaLabel } : {}),
      },
      handlePaste: (view, event) => {
        const files = [...(event.clipboardData?.files ?? [])].filter((f) => f.type.startsWith('image/'));
        if (!files.length || !editorRef.current) return false;
        void uploadRef.current(editorRef.current, files);
        return true;
      },
      handleDrop: (view, event) => {
        const files = [...(event.dataTransfer?.files ?? [])].filter((f) => f.type.startsWith('image/'));
        if (!files.length || !editorRef.current) return false;
        const at = view.posAtCoords({ left: event.clientX, top: event.clientY })?.pos;
        void uploadRef.current(editorRef.current, files, at);
        return true;
      },
    },
    onUpdate: ({ editor: e }) => onChangeRef.current?.(e.isEmpty ? '' : e.getHTML()),
  });
  const editorRef = useRef<Editor | null>(editor);
  editorRef.current = editor;

  // a value set from outside (a form reset, a record loaded after the first render)
  useEffect(() => {
    if (!editor) return;
    const current = editor.isEmpty ? '' : editor.getHTML();
    if ((value ?? '') !== current) editor.commands.setContent(value || EMPTY, { emitUpdate: false });
  }, [editor, value]);
  useEffect(() => {
    editor?.setEditable(!disabled);
  }, [editor, disabled]);

  return (
    <div
      data-testid={testId}
      style={{
        border: `1px solid ${token.colorBorder}`,
        borderRadius: token.borderRadius,
        background: disabled ? token.colorBgContainerDisabled : token.colorBgContainer,
      }}
    >
      <Toolbar editor={editor} disabled={disabled} onImages={(files) => editor && void uploadImages(editor, files)} />
      {uploading !== null && (
        <Progress
          percent={uploading}
          size="small"
          style={{ margin: '0 8px' }}
          aria-label={t('editor.image.uploading')}
        />
      )}
      <div style={{ padding: '8px 12px', minHeight, cursor: 'text' }} onClick={() => editor?.commands.focus()}>
        <EditorContent editor={editor} />
      </div>
    </div>
  );
}

function Toolbar({
  editor,
  disabled,
  onImages,
}: {
  editor: Editor;
  disabled?: boolean;
  onImages: (files: File[]) => void;
}) {
  const { t } = useTranslation();
  const fileInput = useRef<HTMLInputElement>(null);
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      bold: e.isActive('bold'),
      italic: e.isActive('italic'),
      underline: e.isActive('underline'),
      strike: e.isActive('strike'),
      code: e.isActive('code'),
      h2: e.isActive('heading', { level: 2 }),
      h3: e.isActive('heading', { level: 3 }),
      bullet: e.isActive('bulletList'),
      ordered: e.isActive('orderedList'),
      quote: e.isActive('blockquote'),
      link: e.isActive('link'),
      canUndo: e.can().undo(),
      canRedo: e.can().redo(),
    }),
  });
  const tool = (label: string, icon: ReactNode, active: boolean, run: () => void, off = false) => (
    <Tooltip title={label} key={label}>
      <Button
        size="small"
        type={active ? 'primary' : 'text'}
        aria-label={label}
        aria-pressed={active}
        icon={icon}
        disabled={disabled || off}
        onMouseDown={(e) => e.preventDefault()}
        onClick={run}
      />
    </Tooltip>
  );
  const text = (label: string, short: string, active: boolean, run: () => void) => (
    <Tooltip title={label} key={label}>
      <Button
        size="small"
        type={active ? 'primary' : 'text'}
        aria-label={label}
        aria-pressed={active}
        disabled={disabled}
        onMouseDown={(e) => e.preventDefault()}
        onClick={run}
      >
        {short}
      </Button>
    </Tooltip>
  );
  const c = () => editor.chain().focus();
  return (
    <Flex wrap gap={2} align="center" style={{ padding: 4 }} role="toolbar" aria-label={t('editor.toolbar')}>
      {text(t('editor.heading2'), 'H2', state.h2, () => c().toggleHeading({ level: 2 }).run())}
      {text(t('editor.heading3'), 'H3', state.h3, () => c().toggleHeading({ level: 3 }).run())}
      <Divider type="vertical" />
      {tool(t('editor.bold'), <BoldOutlined />, state.bold, () => c().toggleBold().run())}
      {tool(t('editor.italic'), <ItalicOutlined />, state.italic, () => c().toggleItalic().run())}
      {tool(t('editor.underline'), <UnderlineOutlined />, state.underline, () => c().toggleUnderline().run())}
      {tool(t('editor.strike'), <StrikethroughOutlined />, state.strike, () => c().toggleStrike().run())}
      {tool(t('editor.code'), <CodeOutlined />, state.code, () => c().toggleCode().run())}
      <Divider type="vertical" />
      {tool(t('editor.bulletList'), <UnorderedListOutlined />, state.bullet, () => c().toggleBulletList().run())}
      {tool(t('editor.orderedList'), <OrderedListOutlined />, state.ordered, () => c().toggleOrderedList().run())}
      {text(t('editor.quote'), '❝', state.quote, () => c().toggleBlockquote().run())}
      <Divider type="vertical" />
      <LinkButton editor={editor} active={state.link} disabled={disabled} />
      {tool(t('editor.image.insert'), <PictureOutlined />, false, () => fileInput.current?.click())}
      <input
        ref={fileInput}
        type="file"
        accept={IMAGE_ACCEPT_ATTR}
        multiple
        hidden
        data-testid="rich-editor-image-input"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          if (files.length) onImages(files);
        }}
      />
      <Divider type="vertical" />
      {tool(t('editor.undo'), <UndoOutlined />, false, () => c().undo().run(), !state.canUndo)}
      {tool(t('editor.redo'), <RedoOutlined />, false, () => c().redo().run(), !state.canRedo)}
    </Flex>
  );
}

function LinkButton({ editor, active, disabled }: { editor: Editor; active: boolean; disabled?: boolean }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [href, setHref] = useState('');
  const valid = /^(https?:\/\/|mailto:)\S+$/i.test(href.trim());
  const apply = () => {
    if (!href.trim()) editor.chain().focus().extendMarkRange('link').unsetLink().run();
    else if (valid) editor.chain().focus().extendMarkRange('link').setLink({ href: href.trim() }).run();
    else return;
    setOpen(false);
  };
  return (
    <Popover
      open={open}
      onOpenChange={(o) => {
        setOpen(o);
        if (o) setHref((editor.getAttributes('link').href as string | undefined) ?? '');
      }}
      trigger="click"
      content={
        <Flex gap={8}>
          <Input
            size="small"
            autoFocus
            value={href}
            status={href.trim() && !valid ? 'error' : undefined}
            placeholder="https://"
            aria-label={t('editor.linkAddress')}
            onChange={(e) => setHref(e.target.value)}
            onPressEnter={apply}
            style={{ width: 240 }}
          />
          <Button size="small" type="primary" onClick={apply} disabled={!!href.trim() && !valid}>
            {t('common.ok')}
          </Button>
        </Flex>
      }
    >
      <Tooltip title={t('editor.link')}>
        <Button
          size="small"
          type={active ? 'primary' : 'text'}
          aria-label={t('editor.link')}
          aria-pressed={active}
          icon={<LinkOutlined />}
          disabled={disabled}
          onMouseDown={(e) => e.preventDefault()}
        />
      </Tooltip>
    </Popover>
  );
}
