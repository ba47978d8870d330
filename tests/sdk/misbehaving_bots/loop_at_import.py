"""Never finishes loading."""

while True:
    pass


def play(view):
    return view.legal[0]
