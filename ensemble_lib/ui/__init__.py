"""The interface: the panel machine (:mod:`.panel` and its parts, the memo :mod:`.memo`), progress
bars (:mod:`.progress`), plot helpers (:mod:`.plotting`), exercises that answer back
(:mod:`.exercises`), student copies and grading (:mod:`.student_copies`, :mod:`.grade`), the
exercise solutions' folding (:mod:`.solution`) and the Voilà renderer (:mod:`.voila`).

Nothing here computes a number a lesson reports; it shows what the library computed. Nothing here
knows the lessons by name: the commands that gather every lesson (``make figures``, ``make
student``) live on the lessons floor (:mod:`ensemble_lib.lessons.figures`,
:mod:`ensemble_lib.lessons.student_copies`).
"""


__all__: list[str] = []
