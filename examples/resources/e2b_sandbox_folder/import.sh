# A folder is imported by <sandbox_id>:<destination>. Every regular file under the destination
# becomes the resource's, so import a directory that holds only the uploaded files.
terraform import e2b_sandbox_folder.app i1a2b3c4d5e6f7g8h9:/home/user/app
