def play(view)
    return view.legal[0]
