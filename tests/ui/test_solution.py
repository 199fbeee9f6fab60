"""A solution's printed answer is shown folded (a closed <details> block), also when it raises."""

import html.parser

import IPython.display
import pytest

from ensemble_lib.ui.solution import SUMMARY, folded_html, solution


class _Parse(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.text = [], {}, {}
        self._in = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs[tag] = dict(attrs)
        self._in = tag

    def handle_data(self, data):
        self.text[self._in] = self.text.get(self._in, "") + data


@pytest.fixture
def shown(monkeypatch):
    out = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: out.append(obj.data))
    return out


def test_printed_text_is_shown_once_in_a_closed_details_block(shown, capsys):
    with solution("Solution 2"):
        print("KL = 1.551 < 2 & <b>not bold</b>")
    assert capsys.readouterr().out == ""  # nothing printed outside the fold
    (data,) = shown
    p = _Parse()
    p.feed(data)
    assert p.tags == ["details", "summary", "pre"] and "open" not in p.attrs["details"]
    assert p.text["summary"] == f"Solution 2 ({SUMMARY})"
    assert p.text["pre"] == "KL = 1.551 < 2 & <b>not bold</b>\n"  # escaped, so shown as text


def test_a_solution_that_raises_still_shows_what_it_printed(shown):
    with pytest.raises(ZeroDivisionError):
        with solution():
            print("before")
            1 / 0
    assert len(shown) == 1 and "before" in shown[0]


def test_bad_title_is_refused(shown):
    with pytest.raises(ValueError, match="title must be a str"):
        with solution(3):
            pass
    assert folded_html("", "t").startswith("<details")


def test_a_panel_the_solution_builds_renders_only_when_shown_and_one_built_after_at_once(shown):
    from ensemble_lib.lessons.toy_posterior import ToyExplorer

    with solution("Solution 4"):
        own = ToyExplorer()  # a panel of the solution's own (the lesson's stays as it was)
        own.update()
    after = ToyExplorer()
    after.update()
    assert own.image._trait_values["value"] == b""  # never shown: never rendered
    assert after.image._trait_values["value"] != b""  # built outside: rendered at each step
    assert own.image.value == after.image.value  # asked for: the same image at once
