"""One-off studies behind the lab reports (docs/lab/): scripts run with ./rp, apart from the
product (nothing in metapvp/ imports them). Their own tests are test_studies.py."""
