"""The parts of ``bench/coref_names_reads.py``: each part's reads and runs, the reading rule, the
runs' labels and how each part of novels was built."""

SETS = {"bc": ("coref_names", ("gap_b", "gap_c")), "d": ("coref_names_d", ("gap_d",)),
         "e": ("coref_names_e", ("gap_e", "gap_e_lm")),
         "f": ("coref_names_f", ("gap_f_passage", "gap_g_passage", "gap_f")),
         "h": ("coref_names_h", ("gap_h", "gap_i", "gap_h_before", "gap_i_before")),
         "j": ("coref_names_j", ("qed", "gap_j", "qed_before", "gap_j_before")),
         "k": ("coref_names_k", ("redocred",)),
         "l": ("coref_names_l", ("fiction_passage", "fiction")),
         "m": ("coref_names_m", ("fiction_b_passage", "fiction_b")),
         "n": ("coref_names_n", ("fiction_c_passage", "fiction_c", "fiction_d_passage",
                                 "fiction_d")),
         "o": ("coref_names_o", ("fiction_e_passage", "fiction_f_passage", "fiction_g_passage")),
         "p": ("coref_names_p", ("fiction_h_passage",)),
         "q": ("coref_names_q", ("fiction_i",)), "r": ("coref_names_r", ("fiction_j",)),
         "s": ("coref_names_s", ("fiction_k",))}
#: The parts of novels: every violation of the exchanges read, a draw of the lists'.
FICTION = ("l", "m", "n", "o", "p", "q", "r", "s")
RULE = ("real = the follow-up is a fair, natural edit of the source (a person's first name "
        "replaced, at every occurrence, by another first name of the same gender that can stand "
        "there; giving the person another name is the edit itself, and does not by itself count "
        "as changing what the passage says) that cannot change which mentions refer to the same "
        "thing, so the change in clusters means the system is wrong on the source or on the "
        "follow-up; false = the follow-up is unnatural (the word replaced was not a person's "
        "first name, the new name cannot stand there, the sentence no longer reads), changes "
        "what the passage says otherwise, or may legitimately change the coreference (whether "
        "or not the source's clusters are also wrong)")
EXPECTATION = ("the follow-up's clusters should be the same as the source's (same mentions grouped "
               "together), since only a person's first name changed, everywhere, to another of "
               "the same gender")

LABELS = {"gap_b": "`coref_gap_b`", "gap_c": "`coref_gap_c`", "gap_d": "`coref_gap_d`",
          "gap_e": "`coref_gap_e`, new names drawn at random (the default)",
          "gap_e_lm": "`coref_gap_e`, new names ranked by the LM (`lm: smollm2`)",
          "gap_f_passage": "`coref_gap_f`, two people's names exchanged (`new_names: passage`)",
          "gap_g_passage": "`coref_gap_g`, two people's names exchanged (`new_names: passage`)",
          "gap_f": "`coref_gap_f`, new names from the lists (the default; not read)",
          "gap_h": "`coref_gap_h`", "gap_i": "`coref_gap_i`",
          "gap_h_before": "`coref_gap_h`, `fit_era` off, no gender share",
          "gap_i_before": "`coref_gap_i`, `fit_era` off, no gender share",
          "qed": "`coref_qed`", "gap_j": "`coref_gap_j`",
          "qed_before": "`coref_qed`, `fit_era` off, no gender share",
          "gap_j_before": "`coref_gap_j`, `fit_era` off, no gender share",
          "redocred": "`coref_redocred`",
          "fiction_passage": "`coref_fiction`, two people's names exchanged "
                             "(`new_names: passage`)",
          "fiction": "`coref_fiction`, new names from the lists (the default)",
          "fiction_b_passage": "`coref_fiction_b`, two people's names exchanged "
                               "(`new_names: passage`)",
          "fiction_b": "`coref_fiction_b`, new names from the lists (the default)",
          "fiction_c_passage": "`coref_fiction_c`, two people's names exchanged "
                               "(`new_names: passage`)",
          "fiction_c": "`coref_fiction_c`, new names from the lists (the default)",
          "fiction_d_passage": "`coref_fiction_d`, two people's names exchanged "
                               "(`new_names: passage`)",
          "fiction_d": "`coref_fiction_d`, new names from the lists (the default)",
          "fiction_e_passage": "`coref_fiction_e`, two people's names exchanged "
                               "(`new_names: passage`)",
          "fiction_f_passage": "`coref_fiction_f`, two people's names exchanged "
                               "(`new_names: passage`)",
          "fiction_g_passage": "`coref_fiction_g`, two people's names exchanged "
                               "(`new_names: passage`)",
          "fiction_h_passage": "`coref_fiction_h`, two people's names exchanged "
                               "(`new_names: passage`)",
          "fiction_i": "`coref_fiction_i`, new names from the lists, of the year each book is "
                       "set (the default)",
          "fiction_j": "`coref_fiction_j`, new names from the lists, of the year each book is "
                       "set, and of England's lists too (the default)",
          "fiction_k": "`coref_fiction_k`, the same code as part r (the default)"}
HEAD = ["| `name_swap`, part | passages | follow-ups | violations | per 100 passages | read | real "
        "(first / second) | validity (first / second) | real per 100 passages (first / second) "
        "| agreement |", "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]

BUILT = {"l": "passages of eleven public-domain novels, none of them in LitBank "
              "(`suites/data/coref_fiction.jsonl`, `bench/make_coref_fiction.py`), built after "
              "every rule of `name_swap` was written",
         "m": "passages of eleven other public-domain novels, none of them in LitBank "
              "(`suites/data/coref_fiction_b.jsonl`, `bench/make_coref_fiction.py --part b`), "
              "built after part l was read and the rules written on it (a surname after a title "
              "or in a full name, a name also in capitals, a pet form of a name of the other "
              "gender)",
         "n": "passages of twice eleven more public-domain novels, none of them in LitBank "
              "(`suites/data/coref_fiction_c.jsonl` and `_d.jsonl`, `bench/make_coref_fiction.py "
              "--part c` and `--part d`), built after part m was read and the rules written on "
              "it (a name also in a hyphenated word, a pet name of it in the passage, a pet form "
              "of a name of each gender)",
         "o": "passages of twenty-nine more public-domain novels, none of them in LitBank "
              "(`suites/data/coref_fiction_e.jsonl`, `_f.jsonl` and `_g.jsonl`, "
              "`bench/make_coref_fiction.py --part e`, `f` and `g`), built after part n was read "
              "and the rule written on it (a pet form of the same full name inside a sentence)",
         "p": "passages of six more public-domain novels, none of them in LitBank "
              "(`suites/data/coref_fiction_h.jsonl`, `bench/make_coref_fiction.py --part h`), "
              "built after part o was read, with no rule written on it",
         "q": "passages of eleven more public-domain novels, none of them in LitBank, each "
              "with the year its book is set (`suites/data/coref_fiction_i.jsonl`, "
              "`bench/make_coref_fiction.py --part i`), built after part p was read and "
              "`fit_era` was given the year a text is set",
         "r": "passages of nine more public-domain novels, none of them in LitBank, each with "
              "the year its book is set (`suites/data/coref_fiction_j.jsonl`, "
              "`bench/make_coref_fiction.py --part j`), built after part q was read and the "
              "rules written on it (a text set before 1940 takes only names of England's lists "
              "too; a name also written elided is not swapped)",
         "s": "passages of six more public-domain novels, none of them in LitBank, each with "
              "the year its book is set (`suites/data/coref_fiction_k.jsonl`, "
              "`bench/make_coref_fiction.py --part k`), built after part r was read, with no "
              "rule written on it"}
RULES_AFTER = {"l": "a surname after a title or in a full name, a name also in capitals, a pet "
                    "form of a name of the other gender",
               "m": "a name also in a hyphenated word, a pet name of it in the passage, a pet "
                    "form of a name of each gender",
               "n": "a pet form of the same full name inside a sentence, \"Tom\" beside "
                    "\"Tommy\""}
