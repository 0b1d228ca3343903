import '@mantine/tiptap/styles.css';
import { Input } from '@mantine/core';
import { RichTextEditor as MantineEditor } from '@mantine/tiptap';
import { useEditor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useEffect, useId, useLayoutEffect, useRef, type KeyboardEvent } from 'react';

export interface RichTextEditorProps {
  label: string;
  /** HTML; the server sanitises it on every write. */
  value: string;
  onChange: (html: string) => void;
}

/** An empty editor holds one empty paragraph: store that as no description at all. */
function normalise(html: string): string {
  return html === '<p></p>' ? '' : html;
}

/** The toolbar's buttons that can take focus now. */
function toolbarButtons(toolbar: HTMLElement | null): HTMLElement[] {
  if (!toolbar) return [];
  return [...toolbar.querySelectorAll<HTMLElement>('[data-rich-text-editor-control]')].filter((b) => !b.hasAttribute('disabled'));
}

/** What moves the toolbar's focus: the arrows along it, Home and End to its ends. */
function nextIndex(key: string, at: number, count: number): number | null {
  if (key === 'ArrowRight' || key === 'ArrowDown') return (at + 1) % count;
  if (key === 'ArrowLeft' || key === 'ArrowUp') return (at - 1 + count) % count;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return null;
}

export const TOOLBAR_HINT = 'Alt+F10 moves to the formatting toolbar; Escape returns to the text.';

/**
 * The rich-text description editor (Mantine TipTap). Loaded on demand: import it through React.lazy.
 * The value is read once, when it mounts.
 *
 * Tab goes from the field before straight into the text: the toolbar is one ARIA toolbar outside
 * the Tab order, reached with Alt+F10 and walked with the arrows (docs/decisions/0155).
 */
export default function RichTextEditor({ label, value, onChange }: RichTextEditorProps) {
  const labelId = useId();
  const hintId = useId();
  const toolbarRef = useRef<HTMLDivElement>(null);
  // The editor is created once; the latest onChange is read through a ref.
  const onChangeRef = useRef(onChange);
  useEffect(() => {
    onChangeRef.current = onChange;
  }, [onChange]);
  const editor = useEditor({
    extensions: [StarterKit.configure({ link: { openOnClick: false, protocols: ['http', 'https', 'mailto'] } })],
    content: value,
    shouldRerenderOnTransaction: true,
    editorProps: {
      attributes: { role: 'textbox', 'aria-multiline': 'true', 'aria-labelledby': labelId, 'aria-describedby': hintId },
      handleKeyDown: (_view, event) => {
        if (event.key !== 'F10' || !event.altKey) return false;
        event.preventDefault();
        toolbarButtons(toolbarRef.current)[0]?.focus();
        return true;
      },
    },
    onUpdate: ({ editor: e }) => onChangeRef.current(normalise(e.getHTML())),
  });

  // Mantine renders every control as a Tab stop; React sets that once, so taking them out stays.
  useLayoutEffect(() => {
    toolbarRef.current?.querySelectorAll('[data-rich-text-editor-control]').forEach((b) => b.setAttribute('tabindex', '-1'));
  });

  const onToolbarKey = (event: KeyboardEvent<HTMLDivElement>) => {
    // Keys typed in the link box (rendered inside the toolbar's tree) are the box's own.
    if (!(event.target as HTMLElement).hasAttribute('data-rich-text-editor-control')) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      editor?.commands.focus();
      return;
    }
    const buttons = toolbarButtons(toolbarRef.current);
    const to = nextIndex(event.key, buttons.indexOf(document.activeElement as HTMLElement), buttons.length);
    if (to === null || buttons.length === 0) return;
    event.preventDefault();
    buttons[to]?.focus();
  };

  return (
    <div>
      <Input.Label id={labelId} mb={4}>
        {label}
      </Input.Label>
      <MantineEditor editor={editor}>
        <MantineEditor.Toolbar ref={toolbarRef} role="toolbar" aria-label={`${label} formatting`} onKeyDown={onToolbarKey}>
          <MantineEditor.ControlsGroup>
            <MantineEditor.Bold />
            <MantineEditor.Italic />
            <MantineEditor.Underline />
            <MantineEditor.Strikethrough />
            <MantineEditor.Code />
          </MantineEditor.ControlsGroup>
          <MantineEditor.ControlsGroup>
            <MantineEditor.BulletList />
            <MantineEditor.OrderedList />
            <MantineEditor.Blockquote />
          </MantineEditor.ControlsGroup>
          <MantineEditor.ControlsGroup>
            <MantineEditor.Link />
            <MantineEditor.Unlink />
          </MantineEditor.ControlsGroup>
        </MantineEditor.Toolbar>
        <MantineEditor.Content />
      </MantineEditor>
      <Input.Description id={hintId} mt={4}>
        {TOOLBAR_HINT}
      </Input.Description>
    </div>
  );
}
