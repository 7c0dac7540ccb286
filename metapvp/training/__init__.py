"""Self-play PPO training: experiment files, rollouts, the PPO update, the league and the loop."""
