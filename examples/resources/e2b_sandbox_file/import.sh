# A file is imported by <sandbox_id>:<absolute path>.
terraform import e2b_sandbox_file.config i1a2b3c4d5e6f7g8h9:/home/user/app/config.json
