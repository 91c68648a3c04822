"""What every panel shares: display, the message line, the format dropdown, safe callbacks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import ipywidgets as W  # the package's __init__ has already checked it is there

from ..formats import FORMATS, Format


def _short(exc: Exception, limit: int = 300) -> str:
    text = str(exc)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Panel:
    """Shared plumbing: display, the message line, the format dropdown, safe callbacks.

    A callback either completes or changes nothing: the attributes named in
    ``_state`` are saved before it runs and put back if it raises; the controls
    are then redrawn from them, and the error becomes the message line.
    """

    _state: tuple[str, ...] = ("format",)

    widget: W.VBox
    format: Format
    message: str = ""
    is_error: bool = False
    _syncing: bool = False
    _refresh: Callable[[], None]
    set_format: Callable[[Format], None]  # each panel's own

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def _setup(self, fmt: Format) -> None:
        self.message_label = W.HTML().add_class("fpx-message")
        self._formats = dict(FORMATS)
        key = self._format_key(fmt)
        self.format_dropdown = W.Dropdown(options=list(self._formats), value=key)
        self.format_dropdown.description = "format"
        self._on(self.format_dropdown, lambda key: self.set_format(self._formats[key]))

    def _format_key(self, fmt: Format) -> str:
        """The dropdown entry of ``fmt``; a custom format gets a new one."""
        key = next((k for k, known in self._formats.items() if known == fmt), None)
        if key is None:
            key = fmt.name if fmt.name not in self._formats else f"{fmt.name} (custom)"
            self._formats[key] = fmt
        return key

    def _sync_dropdown(self) -> None:
        key = self._format_key(self.format)
        if list(self.format_dropdown.options) != list(self._formats):
            self.format_dropdown.options = list(self._formats)
        self.format_dropdown.value = key

    def _say(self, message: str, error: bool = False) -> None:
        self.message, self.is_error = message, error
        text = message.replace("&", "&amp;").replace("<", "&lt;")
        colour = "#D55E00" if error else "inherit"
        self.message_label.value = f'<span style="color:{colour}">{text}</span>' if text else ""

    def _on(self, control: W.ValueWidget, action: Callable[[Any], None]) -> None:
        """Call ``action(new value)`` when the user changes ``control``; whatever it
        raises becomes the message (nothing may raise into the notebook)."""

        def handler(change: dict[str, Any]) -> None:
            if not self._syncing:
                self._guarded(action, change["new"])

        control.observe(handler, "value")

    def _guarded(self, action: Callable[[Any], None], value: Any) -> None:
        """Run ``action(value)``; if it raises, restore the state saved before it,
        redraw the controls from it and show the error: nothing escapes."""
        saved = {name: getattr(self, name) for name in self._state}
        try:
            action(value)
        except Exception as exc:
            changed = any(getattr(self, n) is not v for n, v in saved.items())
            for name, old in saved.items():
                setattr(self, name, old)
            try:
                if changed:
                    self._rebuild()
                self._refresh()  # put the controls back in line with the state
            except Exception:  # pragma: no cover - the restored state drew before
                pass
            self._say(f"{type(exc).__name__}: {_short(exc)}", error=True)

    def _rebuild(self) -> None:
        """Rebuild controls that depend on the state (the bit buttons); after a restore."""

    @contextmanager
    def _quiet(self) -> Iterator[None]:
        """Update the controls without their observers acting on it."""
        self._syncing = True
        try:
            yield
        finally:
            self._syncing = False
