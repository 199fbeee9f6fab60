"""The interface: the panel machine (:mod:`.panel`), progress bars (:mod:`.progress`), plot helpers
(:mod:`.plotting`), the figures command (:mod:`.figures`) and the Voilà renderer (:mod:`.voila`).

Nothing here computes a number a lesson reports; it shows what the library computed.
"""


__all__: list[str] = []
