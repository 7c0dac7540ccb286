"""The gymnasium environments: the checker passes, episodes end in a win or a loss, the vector
form steps many battles and resets them itself."""
import unittest

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

import metapvp.gym  # noqa: F401 -- registers the ids
from metapvp.gym import PokemonEnv, PokemonVectorEnv
from metapvp.gym.spaces import contract_obs
from metapvp.training.rewards import FOE_FAINTED, OWN_FAINTED, shaping_features


def masked_random(rng, mask):
    return int(rng.choice(np.flatnonzero(mask)))


class EnvTest(unittest.TestCase):
    def test_check_env(self):
        env = PokemonEnv(opponent="maxdamage")
        check_env(env, skip_render_check=True)
        env.close()

    def test_episode_ends_in_a_win_or_a_loss(self):
        env = gymnasium.make("metapvp/Gen9RandomBattle-v0", opponent="heuristic")
        rng = np.random.default_rng(0)
        obs, info = env.reset(seed=3)
        self.assertEqual(obs["action_mask"].shape, (60,))
        np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
        total, steps, done = 0.0, 0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(masked_random(rng, info["action_mask"]))
            total += reward
            steps += 1
            done = terminated or truncated
        self.assertIn(info["outcome"], ("win", "loss"))
        self.assertEqual(total, 1.0 if info["outcome"] == "win" else -1.0)
        self.assertEqual(info["invalid"], 0)
        self.assertGreater(steps, 3)
        env.close()

    def test_shaping_between_decisions_follows_the_trainers_rule(self):
        """With the outcome weighed 0 and a faint weighed 1 each way, the rewards of an episode's
        decisions add up to the foe's fainted less ours at the last decision (the shaping
        telescopes); an unknown reward key is named."""
        env = PokemonEnv(opponent="heuristic", rewards={"win": 0, "loss": 0, "faint_dealt": 1.0, "faint_taken": 1.0})
        rng = np.random.default_rng(1)
        obs, info = env.reset(seed=5)
        total, done = 0.0, False
        while not done:
            last = obs
            obs, reward, done, _, info = env.step(masked_random(rng, info["action_mask"]))
            total += reward
        contract = env.sim.contract
        features = shaping_features({k: v[None] for k, v in contract_obs(last, contract).items()}, [0], contract)[0]
        self.assertGreater(features[FOE_FAINTED] + features[OWN_FAINTED], 0)
        self.assertAlmostEqual(total, features[FOE_FAINTED] - features[OWN_FAINTED], places=4)
        env.close()
        with self.assertRaisesRegex(ValueError, "unknown key.*'damage'"):
            PokemonEnv(rewards={"damage": 1.0})

    def test_seeded_episodes_repeat_to_the_end(self):
        """Two environments reset with the same seed and given the same actions play the same
        battle: every observation, reward and outcome equal, to the last step."""
        def episode():
            env = PokemonEnv(format="gen7randombattle", opponent="random")
            rng = np.random.default_rng(5)   # the agent's own choices: the same in both
            obs, info = env.reset(seed=42)
            seen, done = [obs], False
            while not done:
                action = int(rng.choice(np.flatnonzero(info["action_mask"])))
                obs, reward, done, _, info = env.step(action)
                seen.append((obs, reward, info.get("outcome")))
            env.close()
            return seen

        first, second = episode(), episode()
        self.assertEqual(len(first), len(second))
        self.assertGreater(len(first), 5)
        for a, b in zip(first, second):
            a, b = (a, None, None) if isinstance(a, dict) else a, (b, None, None) if isinstance(b, dict) else b
            self.assertEqual(a[1:], b[1:])
            for k in a[0]:
                np.testing.assert_array_equal(a[0][k], b[0][k], err_msg=k)

    def test_vector_seeded_resets_repeat(self):
        def run():
            env = PokemonVectorEnv(2, format="gen9randombattle", opponent="random")
            obs, info = env.reset(seed=3)
            out = [obs]
            for _ in range(15):
                masks = obs["action_mask"]
                obs, rewards, done, _, info = env.step(masks.argmax(1))
                out.append(obs)
            env.close()
            return out

        for a, b in zip(run(), run()):
            for k in a:
                np.testing.assert_array_equal(a[k], b[k], err_msg=k)

    def test_other_gens_register(self):
        env = gymnasium.make("metapvp/Gen1RandomBattle-v0")
        obs, _ = env.reset(seed=1)
        self.assertEqual(int(obs["battle_gen"][0]), 1)
        env.close()


class VectorEnvTest(unittest.TestCase):
    def test_steps_and_autoresets(self):
        n = 8
        env = PokemonVectorEnv(n, opponent="random")
        rng = np.random.default_rng(1)
        obs, info = env.reset(seed=5)
        self.assertEqual(obs["action_mask"].shape, (n, 60))
        self.assertTrue(env.observation_space.contains(obs))
        finished, outcomes = 0, set()
        for _ in range(400):
            actions = np.array([masked_random(rng, m) for m in info["action_mask"]])
            obs, rewards, terminated, truncated, info = env.step(actions)
            self.assertTrue((info["action_mask"].sum(axis=1) > 0).all())  # every env has a fresh decision
            for i in np.flatnonzero(terminated):
                finished += 1
                outcomes.add(info["final_info"][i]["outcome"])
                self.assertEqual(rewards[i], {"win": 1.0, "loss": -1.0, "tie": 0.0}[info["final_info"][i]["outcome"]])
            if finished >= n:
                break
        self.assertGreaterEqual(finished, n)
        self.assertTrue(outcomes <= {"win", "loss", "tie"})
        env.close()


if __name__ == "__main__":
    unittest.main()
