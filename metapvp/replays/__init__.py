"""Battles to watch: a battle's log as the replay file Showdown users know (showdown.py), and a
page of what its players thought, turn by turn, that works offline (page.py); run.py finds a
run's battles and writes either, whole or not at all."""
