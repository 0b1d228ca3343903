import { useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { QuickTemplate } from '../../api/catalog';

interface Props {
  label: string;
  initial: string;
  templates: QuickTemplate[];
  onFinish: (text: string | null, move: { rows: number; cols: number }) => void;
  onHistory: () => void;
}

/**
 * A cell's text edited in place: Enter commits and moves down, Tab right (Shift+Tab left),
 * Escape cancels, Shift+Enter or Alt+Enter starts a new line. The quick templates that hold what
 * is typed are offered below; the arrow keys pick one and Enter takes it.
 */
export function CellEditor({ label, initial, templates, onFinish, onHistory }: Props) {
  const [text, setText] = useState(initial);
  const [picked, setPicked] = useState(-1);
  const done = useRef(false);
  const id = useId();
  const sorted = useMemo(() => [...templates].sort((a, b) => a.position - b.position), [templates]);
  const needle = text.trim().toLowerCase();
  // Text typed that is already a whole template (or several lines) offers nothing more.
  const offered = text.includes('\n') ? [] : sorted.filter((t) => !needle || t.template_text.toLowerCase().includes(needle)).slice(0, 8);
  const pickedTemplate = picked >= 0 ? offered[picked] : undefined;

  const finish = (value: string | null, move: { rows: number; cols: number }) => {
    if (done.current) return;
    done.current = true;
    onFinish(value, move);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    e.stopPropagation();
    if (e.key === 'Enter' && (e.shiftKey || e.altKey)) {
      if (e.altKey) {
        // Alt+Enter, as in spreadsheets: a new line where the caret is.
        e.preventDefault();
        const el = e.currentTarget;
        const at = el.selectionStart;
        const next = text.slice(0, at) + '\n' + text.slice(el.selectionEnd);
        setText(next);
        requestAnimationFrame(() => el.setSelectionRange(at + 1, at + 1));
      }
      return;
    }
    if (e.key === 'Enter') {
      e.preventDefault();
      finish(pickedTemplate ? pickedTemplate.template_text : text, { rows: 1, cols: 0 });
    } else if (e.key === 'Tab') {
      e.preventDefault();
      finish(pickedTemplate ? pickedTemplate.template_text : text, { rows: 0, cols: e.shiftKey ? -1 : 1 });
    } else if (e.key === 'Escape') {
      e.preventDefault();
      if (picked >= 0) setPicked(-1);
      else finish(null, { rows: 0, cols: 0 });
    } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && offered.length && !text.includes('\n')) {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      const n = offered.length;
      setPicked((p) => (p + step >= n ? -1 : p + step < -1 ? n - 1 : p + step));
    } else if (e.altKey && (e.key === 'h' || e.code === 'KeyH')) {
      e.preventDefault();
      onHistory();
    }
  };

  return (
    <div className="roadmap-cell-editor">
      <textarea
        className="roadmap-cell-textarea"
        aria-label={label}
        aria-describedby={`${id}-hint`}
        aria-activedescendant={pickedTemplate ? `${id}-t${picked}` : undefined}
        aria-controls={offered.length ? `${id}-list` : undefined}
        value={text}
        rows={Math.min(6, Math.max(2, text.split('\n').length))}
        autoFocus
        onFocus={(e) => {
          const end = e.currentTarget.value.length;
          e.currentTarget.setSelectionRange(end, end);
        }}
        onChange={(e) => {
          setText(e.currentTarget.value);
          setPicked(-1);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => finish(text, { rows: 0, cols: 0 })}
      />
      <span id={`${id}-hint`} className="roadmap-visually-hidden">
        Enter saves, Escape cancels, Shift+Enter adds a line, Alt+H shows the history
      </span>
      {offered.length ? (
        <ul className="roadmap-cell-templates" role="listbox" id={`${id}-list`} aria-label="Quick templates">
          {offered.map((t, i) => (
            <li
              key={t.id}
              id={`${id}-t${i}`}
              role="option"
              aria-selected={i === picked}
              className={i === picked ? 'roadmap-cell-template-picked' : undefined}
              // A template taken with the mouse: the editor keeps the focus until it commits.
              onMouseDown={(e) => {
                e.preventDefault();
                finish(t.template_text, { rows: 1, cols: 0 });
              }}
            >
              {t.template_text}
            </li>
          ))}
        </ul>
      ) : null}
      <button type="button" className="roadmap-cell-history-button" tabIndex={-1} onMouseDown={(e) => e.preventDefault()} onClick={onHistory}>
        History
      </button>
    </div>
  );
}
