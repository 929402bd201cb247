-- A queued email now carries the template it is sent with (its id, subject, HTML and text), copied
-- in when it is queued, so sending reads no template. Messages not finished yet that name only the
-- template's id get its content here; one whose template was removed meanwhile keeps none and goes
-- out as the built-in email, as it would have before.
UPDATE outbox o
   SET payload = (o.payload - 'templateId') || jsonb_strip_nulls(jsonb_build_object('template',
         (SELECT jsonb_build_object('templateId', t.id::text, 'subject', t.subject, 'html', t.html, 'text', t.text)
            FROM email_templates t
           WHERE t.id::text = o.payload->>'templateId' AND t.organization_id = o.organization_id)))
 WHERE o.status IN ('queued', 'retrying', 'sending') AND o.payload ? 'templateId';
