/* Placeholder while being written (issue 4). */
int main(void);
int main(void)
{
	return 77;
}
