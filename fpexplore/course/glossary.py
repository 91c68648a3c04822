"""The course's glossary: the terms a student meets, each with a short definition.

The lesson prints it, the printable handout lists it, and the pace model counts a term
as *new* in the part of a notebook where its Markdown first uses it
(:func:`first_uses`): a new term costs class time, the definition and an example. It is
longer than most modules because it holds the glossary of both editions of the lesson
(:data:`GLOSSARY_RU`, and the Russian edition's settled terms, :data:`TERMINOLOGY_RU`):
one job, the course's terms.

Examples
--------
>>> term = GLOSSARY[0]
>>> term.name, bool(term.found("the mantissa bits"))
('mantissa', True)
>>> [t.name for t in first_uses({"cells": [{"cell_type": "markdown",
...     "source": "A NaN is not a binade."}]})[0]]
['binade', 'NaN']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .outline import NotebookLike, cell_source, load

__all__ = [
    "GLOSSARIES",
    "GLOSSARY",
    "GLOSSARY_RU",
    "TERMINOLOGY_RU",
    "Term",
    "first_uses",
    "glossary_markdown",
    "terminology_problems",
]


@dataclass(frozen=True)
class Term:
    """A term of the glossary: its name, what it means, and the pattern (a regular
    expression, case-sensitive) that finds it in a text."""

    name: str
    meaning: str
    pattern: str
    avoid: str = ""
    """For a translated term: a regular expression of the synonyms the translation does
    not use (the term is settled once; "" for none)."""

    def avoided(self, text: str) -> re.Match[str] | None:
        """The first synonym of the term that ``text`` uses instead of it, or None."""
        return re.search(self.avoid, text) if self.avoid else None

    def found(self, text: str) -> re.Match[str] | None:
        """The first use of the term in ``text``, or None."""
        return re.search(self.pattern, text)


GLOSSARY = (
    Term(
        "mantissa",
        "the stored fraction bits m of a float, the digits after the point of 1.m "
        "(IEEE 754 calls them the trailing significand field)",
        r"\b[Mm]antissas?\b",
    ),
    Term(
        "hidden leading 1",
        "a normal float's value is 1.m, but the 1 before the point is not stored: "
        "float16 stores 10 mantissa bits and has 11 significant bits",
        r"[Hh]idden (leading )?1|significant bits",
    ),
    Term(
        "exponent field",
        "the exponent bits read as an unsigned integer; the power of two is the field "
        "minus the bias",
        r"exponent field",
    ),
    Term(
        "bias",
        "what is subtracted from the exponent field: 15 for float16, 127 for float32, "
        "1023 for float64",
        r"\bbias\b",
    ),
    Term(
        "binade",
        "the values from 2^N up to (not including) 2^(N+1); in the normal range every "
        "binade holds the same number of values",
        r"\b[Bb]inades?\b",
    ),
    Term(
        "normal",
        "a float with the hidden leading 1: its exponent field is neither all zeros nor all ones",
        r"\bnormal (numbers?|range|values?)\b|\*normal\*",
    ),
    Term(
        "subnormal",
        "a value below the smallest normal number (exponent field 0): 0.m times "
        "2^(1 - bias), evenly spaced, with fewer significant bits",
        r"\b[Ss]ubnormals?\b",
    ),
    Term("NaN", "not a number: the result of 0/0 or inf - inf, a reserved bit pattern", r"\bNaN\b"),
    Term(
        "e4m3fn",
        "an 8-bit float (FP8): 4 exponent bits, 3 mantissa bits, no infinities; its top "
        "pattern is NaN",
        r"e4m3fn",
    ),
    Term(
        "machine epsilon",
        "eps, the gap between 1 and the next value: 2^-10 in float16, 2^-23 in float32",
        r"machine epsilon|\beps\b",
    ),
    Term(
        "ulp",
        "unit in the last place: the gap from a value to its neighbour away from zero",
        r"\bulp\b|\bULP\b",
    ),
    Term("absolute error", "|stored - exact|", r"\*?absolute\*? error"),
    Term(
        "relative error",
        "|stored - exact| / |exact|; at most eps/2 in the normal range",
        r"\*?relative\*? error",
    ),
    Term(
        "ties to even",
        "a number exactly halfway between two values is stored as the one whose last "
        "mantissa bit is 0",
        r"\btie\b|\bties\b",
    ),
    Term(
        "bfloat16",
        "a 16-bit float with float32's 8 exponent bits (so its range) and 7 mantissa bits",
        r"\bbfloat16\b",
    ),
    Term(
        "tensor core",
        "a unit of NVIDIA GPUs that multiplies small matrices of 16- or 8-bit numbers in "
        "one step and adds the products at higher precision",
        r"[Tt]ensor cores?",
    ),
    Term("TPU", "Google's tensor processing unit, a chip built for matrix products", r"\bTPUs?\b"),
    Term(
        "overflow",
        "a result beyond the largest value: it becomes infinity (or NaN in e4m3fn)",
        r"\boverflow",
    ),
    Term(
        "underflow",
        "a result too small for the format: it becomes a subnormal, or 0",
        r"\bunderflow",
    ),
    Term("logits", "the scores a classifier computes before softmax", r"\blogits?\b"),
    Term(
        "softmax",
        "turns logits x into probabilities, e^(x_i) / sum of e^(x_j)",
        r"\b[Ss]oftmax\b",
    ),
    Term(
        "crossentropy",
        "the loss -log p, p the probability the model gives the true class",
        r"\b[Cc]ross-?entropy\b",
    ),
    Term(
        "log-sum-exp",
        "log of a sum of e^(x_j) computed as m + log sum e^(x_j - m), m the largest x_j, "
        "so that no exponential overflows",
        r"log-sum-exp",
    ),
    Term(
        "gradient",
        "how fast the loss changes with each weight; training moves each weight a small "
        "step against its gradient (Adam is one rule for that step)",
        r"\b[Gg]radients?\b",
    ),
    Term(
        "loss scaling",
        "multiply the loss by S before the backward pass so that small gradients do not "
        "underflow, then divide the gradients by S in float32 before the update; dynamic "
        "loss scaling skips a step whose gradients hold inf or NaN and halves S, and "
        "doubles S after a run of good steps",
        r"[Ll]oss scal(e|ing)",
    ),
    Term(
        "dtype policy",
        "Keras: a layer computes in its compute_dtype and stores its weights in its variable_dtype",
        r"compute_dtype|variable_dtype",
    ),
)
"""The terms, in the order a student meets them in the lesson."""

GLOSSARY_RU = (
    Term(
        "мантисса",
        "хранимые дробные биты m числа с плавающей точкой, цифры после точки в 1.m "
        "(в IEEE 754 это поле мантиссы, trailing significand field)",
        r"[Мм]антисс",
        r"[Зз]начащ\w*\s+част\w*|\b[Мм]антиса",
    ),
    Term(
        "скрытая единица",
        "значение нормализованного числа равно 1.m, но единица перед точкой не хранится: "
        "float16 хранит 10 бит мантиссы, а значащих бит у него 11",
        r"[Сс]крыт\w*\s+(старш\w*\s+)?единиц|значащих\s+бит",
        r"[Нн]еявн\w*\s+(старш\w*\s+)?единиц",
    ),
    Term(
        "поле порядка",
        "биты порядка, прочитанные как целое число без знака; степень двойки равна полю "
        "порядка минус смещение",
        r"пол[еяю]\w*\s+порядка",
        r"[Пп]оказател\w*\s+степени|пол\w*\s+экспонент\w*|\bэкспонент\w*\s+(пол|бит)\w*",
    ),
    Term(
        "смещение порядка",
        "то, что вычитают из поля порядка: 15 у float16, 127 у float32, 1023 у float64",
        r"\b[Сс]мещени\w*",
        r"[Сс]двиг\w*\s+порядка|\b[Бб]иас\w*",
    ),
    Term(
        "бинада",
        "значения от 2^N до 2^(N+1), не включая его; в нормализованном диапазоне в каждой "
        "бинаде одинаковое число значений",
        r"\b[Бб]инад",
        r"[Дд]воичн\w*\s+октав\w*",
    ),
    Term(
        "нормализованное число",
        "число со скрытой единицей: его поле порядка не состоит ни из одних нулей, ни из "
        "одних единиц",
        r"[Нн]ормализованн\w*\s+(чис\w*|диапазон\w*|значени\w*)|\*нормализованн\w*\*",
        r"\b[Нн]ормальн\w*\s+(чис\w*|диапазон\w*|значени\w*)",
    ),
    Term(
        "субнормальное число",
        "значение меньше наименьшего нормализованного (поле порядка 0): 0.m × 2^(1 − "
        "смещение); такие значения расположены равномерно, и значащих бит у них меньше",
        r"[Сс]убнормальн",
        r"[Дд]енормализ\w*|[Дд]енормальн\w*",
    ),
    Term(
        "NaN",
        "«не число» (not a number): результат 0/0 или inf − inf, зарезервированный набор бит",
        r"\bNaN\b",
    ),
    Term(
        "e4m3fn",
        "8-битное число с плавающей точкой (FP8): 4 бита порядка, 3 бита мантиссы, "
        "бесконечностей нет; старший набор бит означает NaN",
        r"e4m3fn",
    ),
    Term(
        "машинный эпсилон",
        "eps, расстояние от 1 до следующего значения: 2^-10 у float16, 2^-23 у float32",
        r"[Мм]ашинн\w*\s+эпсилон|\beps\b",
        r"[Мм]ашинн\w*\s+точност\w*|[Ээ]псилон\s+машины",
    ),
    Term(
        "ulp",
        "единица последнего разряда (unit in the last place): расстояние от значения до "
        "соседнего, более далёкого от нуля",
        r"\bulp\b|\bULP\b",
    ),
    Term(
        "абсолютная погрешность",
        "|хранимое − точное|",
        r"\*?[Аа]бсолютн\w*\*?\s+погрешност",
        r"[Аа]бсолютн\w*\s+ошибк\w*",
    ),
    Term(
        "относительная погрешность",
        "|хранимое − точное| / |точное|; в нормализованном диапазоне не больше eps/2",
        r"\*?[Оо]тносительн\w*\*?\s+погрешност",
        r"[Оо]тносительн\w*\s+ошибк\w*",
    ),
    Term(
        "округление к чётному",
        "число ровно посередине между двумя значениями сохраняется как то из них, у "
        "которого последний бит мантиссы равен 0",
        r"ровно\s+посередине|к\s+чётному",
        r"[Бб]анковск\w*\s+округлени\w*|\b[Нн]ичь\w*|к\s+четному",
    ),
    Term(
        "bfloat16",
        "16-битный формат с 8 битами порядка, как у float32 (а значит, с его диапазоном), и "
        "7 битами мантиссы",
        r"\bbfloat16\b",
    ),
    Term(
        "тензорное ядро",
        "блок GPU NVIDIA, который за один шаг перемножает небольшие матрицы 16- или "
        "8-битных чисел и складывает произведения с большей точностью",
        r"[Тт]ензорн\w*\s+яд(ро|ра|ер|ру|ром|рам|рами|рах)\b",
        r"[Тт]ензорн\w*\s+кор\w*",
    ),
    Term(
        "TPU",
        "тензорный процессор Google (tensor processing unit), микросхема для произведений матриц",
        r"\bTPU\b",
    ),
    Term(
        "переполнение",
        "результат больше наибольшего значения формата: он становится бесконечностью (в "
        "e4m3fn — NaN)",
        r"[Пп]ереполн",
    ),
    Term(
        "исчезновение порядка",
        "результат слишком мал для формата: он становится субнормальным числом или нулём",
        r"[Ии]счезновени\w*\s+порядка",
        r"[Аа]нтипереполнени\w*",
    ),
    Term(
        "логиты",
        "оценки, которые классификатор вычисляет до softmax",
        r"\b[Лл]огит",
    ),
    Term(
        "softmax",
        "переводит логиты x в вероятности: e^(x_i) / сумма e^(x_j)",
        r"\b[Ss]oftmax\b",
    ),
    Term(
        "перекрёстная энтропия",
        "функция потерь −log p, где p — вероятность, которую модель даёт истинному классу",
        r"[Пп]ерекр[её]стн\w*\s+энтропи",
        r"[Кк]росс-?энтропи\w*|[Пп]ерекрестн\w*",
    ),
    Term(
        "log-sum-exp",
        "логарифм суммы e^(x_j), вычисленный как m + log Σ e^(x_j − m), где m — наибольший "
        "из x_j, чтобы ни одна экспонента не переполнилась",
        r"log-sum-exp",
    ),
    Term(
        "градиент",
        "скорость, с которой функция потерь меняется с каждым весом; обучение сдвигает "
        "каждый вес на небольшой шаг против его градиента (Adam — одно из правил этого шага)",
        r"\b[Гг]радиент",
    ),
    Term(
        "масштабирование потерь",
        "функцию потерь умножают на S перед обратным проходом, чтобы малые градиенты не "
        "обращались в 0, а перед обновлением весов делят градиенты на S во float32; "
        "динамическое масштабирование пропускает шаг, в градиентах которого есть inf или "
        "NaN, и уменьшает S вдвое, а после серии удачных шагов удваивает S",
        r"[Мм]асштаб\w*\s+потерь",
        r"[Шш]калировани\w*",
    ),
    Term(
        "политика типов",
        "Keras: слой вычисляет в своём compute_dtype и хранит веса в своём variable_dtype",
        r"compute_dtype|variable_dtype",
    ),
)
"""The glossary of the Russian edition: :data:`GLOSSARY`'s terms in the same order, each
settled once (``avoid`` lists the synonyms the edition does not use; a space in a pattern
is ``\\s+``, so that a term broken over two lines is still found)."""

TERMINOLOGY_RU = (
    Term(
        "число с плавающей точкой",
        "floating-point number",
        r"плавающей\s+точкой",
        r"плавающей\s+запятой",
    ),
    Term("порядок", "exponent", r"\bпорядк?\w*", r"[Пп]оказател\w*\s+степени"),
    Term(
        "половинная точность",
        "half precision (float16)",
        r"[Пп]оловинн\w*\s+точност",
        r"\b[Пп]олуточн\w*",
    ),
    Term(
        "одинарная точность",
        "single precision (float32)",
        r"[Оо]динарн\w*\s+точност",
        r"[Оо]диночн\w*\s+точност\w*",
    ),
    Term("двойная точность", "double precision (float64)", r"[Дд]войн\w*\s+точност"),
    Term(
        "смешанная точность",
        "mixed precision",
        r"[Сс]мешанн\w*\s+точност",
        r"[Сс]мешанн\w*\s+(прецизи|разрядност)\w*",
    ),
    Term("бит знака", "sign bit", r"бит\w*\s+знака", r"[Зз]наков\w*\s+бит\w*"),
    Term(
        "округление к ближайшему",
        "rounding to nearest",
        r"[Оо]кругл\w*\s+к\s+ближайшему",
        r"[Оо]кругл\w*\s+до\s+ближайшего",
    ),
)
"""Further terms the Russian edition settles once, with the English they translate: the
names of the formats' precisions and parts, which its glossary takes for granted."""

GLOSSARIES = {"en": GLOSSARY, "ru": GLOSSARY_RU}
"""The glossary of each edition of the lesson, by language."""


def first_uses(notebook: NotebookLike) -> dict[int, list[Term]]:
    """Cell index -> the glossary terms whose first use in the notebook's Markdown (code
    spans and link targets included) is in that cell, in glossary order. A term is used
    where its English name or its Russian one (:data:`GLOSSARY_RU`) is: the pace model
    reads both editions of the lesson alike."""
    first: dict[int, list[Term]] = {}
    seen: set[str] = set()
    for index, cell in enumerate(load(notebook)["cells"]):
        if cell.get("cell_type") != "markdown":
            continue
        text = cell_source(cell)
        for term, russian in zip(GLOSSARY, GLOSSARY_RU, strict=True):
            if term.name not in seen and (term.found(text) or russian.found(text)):
                seen.add(term.name)
                first.setdefault(index, []).append(term)
    return first


def glossary_markdown(terms: tuple[Term, ...] | str = GLOSSARY) -> str:
    """The glossary as a Markdown list, one term a line; ``terms`` is a glossary or a
    language, ``"en"`` (:data:`GLOSSARY`) or ``"ru"`` (:data:`GLOSSARY_RU`)."""
    chosen = GLOSSARIES[terms] if isinstance(terms, str) else terms
    return "\n".join(f"- **{term.name}**: {term.meaning}" for term in chosen)


def terminology_problems(text: str) -> list[str]:
    """Where a Russian ``text`` uses a synonym instead of the settled term
    (:data:`GLOSSARY_RU` and :data:`TERMINOLOGY_RU`): empty when it keeps to them.

    >>> terminology_problems("денормализованные числа и мантисса")
    ["'денормализованные' where the settled term is 'субнормальное число'"]
    """
    problems = []
    for term in (*GLOSSARY_RU, *TERMINOLOGY_RU):
        if found := term.avoided(text):
            problems.append(f"{found[0]!r} where the settled term is {term.name!r}")
    return problems
