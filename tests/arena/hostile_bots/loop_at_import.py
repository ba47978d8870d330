"""Never finishes loading."""

while True:
    pass


def play(view):
    return min(view.legal)
