# <template>:<tag>, with the template written as the configuration's `template` writes it
# (its name, or its ID): the other form plans a replacement of the tag.
terraform import e2b_template_tag.prod my-app:prod
