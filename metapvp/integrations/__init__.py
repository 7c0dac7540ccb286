"""The project's pieces inside the RL libraries people bring (sb3: Stable-Baselines3 and
sb3-contrib). Each module imports its library only when it is itself imported."""
