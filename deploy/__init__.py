"""Running the lab for a class: deploy.serve (one command) and the nginx template it fills in."""
