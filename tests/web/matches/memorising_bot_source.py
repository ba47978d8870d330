# A bot that remembers deals (tests/web/matches/memorising_bot.py): legal play, and a memory
# of every deal it has seen, kept across the games of its process.
from collections import Counter

from cucumbers import Bot


class Memory(Bot):
    def __init__(self):
        self.deals = {}  # a hand (its sorted cards) -> every hand of its deal
        self.new_round = True
        self.hand = ()
        self.prediction = Counter()
        self.expected = Counter()  # the opponents' cards the remembered deal gives
        self.recognised = self.predicted = self.seen = 0
        # Rounds whose opponents' cards were all foreseen: the deal itself was known. A hand
        # of one's own can come back by chance (one 7-card hand in a few hundred repeats in
        # a long match); the rest of its deal then does not.
        self.foreseen = 0

    def start_game(self, game):
        self.new_round = True

    def play(self, view):
        if self.new_round:
            # The round's first move: the whole hand is still held.
            self.new_round = False
            self.hand = tuple(view.hand)
            self.prediction = Counter()
            self.expected = Counter()
            deal = self.deals.get(self.hand)
            if deal is not None:
                self.recognised += 1
                for hand in deal:
                    self.prediction.update(hand)
                self.prediction.subtract(self.hand)
                self.expected = +self.prediction
        return view.legal[0]

    def end_round(self, result):
        hands = {}
        for trick in result.tricks:
            for play in trick.plays:
                hands.setdefault(play.seat, []).append(play.card)
        deal = [tuple(sorted(cards)) for cards in hands.values()]
        theirs = list(deal)
        if self.hand in theirs:
            theirs.remove(self.hand)
        if self.expected and self.expected == Counter(card for hand in theirs for card in hand):
            self.foreseen += 1
        for hand in theirs:
            for card in hand:
                self.seen += 1
                if self.prediction[card] > 0:
                    self.prediction[card] -= 1
                    self.predicted += 1
        for hand in deal:
            self.deals[hand] = deal
        self.new_round = True
        print(
            f"memory: recognised {self.recognised} hands, foresaw {self.foreseen} deals,"
            f" predicted {self.predicted} of {self.seen} opponents' cards"
        )
